import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import type { RenderedAlert } from '../../lambda/core/types.ts';
import { computeUptime } from '../../lambda/core/uptime.ts';
import { runCycle } from '../../lambda/cycle.ts';
import { buildReportFile, DEFAULT_REPORT_FILE } from '../../lambda/report/build.ts';
import { defineCommand } from '../args.ts';
import { numericSeries, renderLineChart } from '../chart.ts';
import { toHistoryEntry } from '../entries.ts';
import { palette, parseCount, parseDurationMs, printable, renderTable, useColour } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { cycleLine, terminalLog } from '../monitor.ts';
import { startSimulator } from '../simulator/server.ts';
import { openStore } from '../store/open.ts';
import { eventsCommand } from './events.ts';
import { incidentsCommand } from './incidents.ts';

/** The table the demo writes to, in the embedded store; recreated on every run. */
export const DEMO_TABLE = 'shieldwatch-demo';

/** The demo's traffic rule: edge-1's attack (40 times its traffic) trips it, its end resolves it. */
export const DEMO_RULES = 'flood: traffic.in.pps > 500k for 2';

/** The demo never touches AWS: every AWS setting is dropped, so the embedded store is used. */
function localOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('SHIELDWATCH_')),
  );
}

export const demoCommand = defineCommand({
  name: 'demo',
  description: [
    'Starts the API simulator (scenario demo: active, then mitigating with an attack on edge-1 that',
    'spreads to edge-2, then active again) and the embedded store, runs the monitor every couple of seconds',
    `with a traffic rule (${DEMO_RULES}) and shows each cycle and each alert as it happens (the status`,
    "changes; the rule's incident opened, updated when edge-2 joins, resolved), then prints the incident's",
    'story (shieldwatch incidents, incidents show), the history, the events, a chart of the attack',
    'and the uptime, writes the HTML report (shieldwatch-report.html here) and prints its path, and exits.',
    'Needs no AWS account and never uses one, whatever AWS settings are set.',
    `Its data stays in the embedded store, table ${DEMO_TABLE}, to explore afterwards:`,
    `  SHIELDWATCH_TABLE=${DEMO_TABLE} npx shieldwatch history --network edge-1 --chart traffic.in.pps`,
  ].join('\n'),
  options: {
    cycles: { type: 'string', value: 'N', default: '15', description: 'cycles to run' },
    every: {
      type: 'string',
      value: 'DURATION',
      default: '2s',
      description: 'interval between cycles, 200ms to 60s',
    },
  },
  examples: ['demo', 'demo --cycles 8 --every 1s'],
  async run(values, io: CliIo) {
    const cycles = parseCount('--cycles', values.cycles);
    const everyMs = parseDurationMs('--every', values.every, 200, 60_000);
    const colour = palette(useColour(io.stdout, io.env));
    const env = localOnly(io.env);
    // The scenario's changes (8 s and 20 s) fall inside the run whatever its length, the attack's end early
    // enough that the rule below sees two normal cycles after it and resolves.
    const runMs = cycles * everyMs;
    const speed = Math.max(0.05, 30_000 / Math.max(runMs, 1));
    // The scenario's clock follows the cycles, not the wall clock: cycle i sees it at i × every, however late
    // the cycles before it ran. On a loaded machine a quick demo's cycles run late, and on the wall clock the
    // attack's spread to edge-2 (two cycles of the plan) could fall between two of them and never trip the rule.
    let scenarioClockMs = io.now();
    const simulator = await startSimulator({
      shape: 'nested',
      scenario: 'demo',
      speed,
      now: () => scenarioClockMs,
      // Latency only: the banner promises no failures, so none are injected at random (a run might show none).
      faults: { latencyMs: 20, jitterMs: 40 },
    });
    println(io.stdout, colour.bold('shieldwatch demo'));
    println(
      io.stdout,
      `  simulated API  ${simulator.url} (nested body: status at data.filter.state; 20-60 ms per answer)`,
    );
    const store = await openStore(env, DEMO_TABLE);
    await store.client.send(new DeleteTableCommand({ TableName: DEMO_TABLE }));
    const fresh = await openStore(env, DEMO_TABLE);
    store.client.destroy();
    println(io.stdout, `  store          ${fresh.description}`);
    const monitorEnv = {
      ...env,
      ...simulator.env,
      SHIELDWATCH_TABLE: DEMO_TABLE,
      SHIELDWATCH_EXPECTED_STATUS: 'active',
      SHIELDWATCH_TIMEOUT_MS: '1500',
      SHIELDWATCH_ALERT_AFTER: '2',
      SHIELDWATCH_RULES: DEMO_RULES,
    };
    const sent: RenderedAlert[] = [];
    const monitor = buildMonitor({
      config: loadConfig(monitorEnv),
      env: monitorEnv,
      dynamo: fresh.client,
      log: terminalLog(io, false),
      // Held until the cycle's line is printed: each alert then shows once, under the cycle that sent it.
      fallbackPublisher: new LogAlertPublisher((alert) => {
        sent.push(alert);
      }),
      now: io.now,
    });
    println(
      io.stdout,
      `  monitor        ${cycles} cycles, one every ${everyMs / 1000}s; alerts print here (no SNS)`,
    );
    println(io.stdout, `  traffic rule   ${DEMO_RULES}`);
    // The scenario runs in about 30 s, not hours: the group interval (5m by default) is one cycle here, so
    // the network that joins the incident is announced in the next cycle.
    const groupIntervalMs = Math.max(100, Math.floor(everyMs / 2));
    println(
      io.stdout,
      `  incidents      networks on which the rule triggers form one incident; joiners announced at most every ${groupIntervalMs / 1000}s (SHIELDWATCH_GROUP_INTERVAL, 5m outside the demo)`,
    );
    const settings = { ...monitor.settings, groupIntervalMs };
    println(io.stdout, '');
    try {
      const started = io.now();
      for (let i = 0; i < cycles; i++) {
        scenarioClockMs = started + i * everyMs;
        const result = await runCycle(monitor.deps, settings, io.now() + Math.max(everyMs, 2000));
        println(io.stdout, cycleLine(result, io));
        for (const alert of sent.splice(0)) {
          println(
            io.stdout,
            colour.bold(
              colour.yellow(`ALERT ${alert.attributes['event'] ?? ''}: ${printable(alert.subject)}`),
            ),
          );
        }
        // Output closed (`demo | head`): nobody reads the rest.
        if (io.closed?.aborted === true) return 0;
        if (i < cycles - 1) await sleep(Math.max(0, started + (i + 1) * everyMs - io.now()));
      }

      const storeView = new DynamoStore(fresh.client, DEMO_TABLE);
      // The incidents command itself on the demo's table, then the story of the attack's incident.
      const demoIo = { ...io, env: { ...env, SHIELDWATCH_TABLE: DEMO_TABLE } };
      println(io.stdout, `\n${colour.bold('Incidents')} (shieldwatch incidents)`);
      if ((await incidentsCommand.run({ format: 'table' }, demoIo)) !== 0) {
        throw new Error("shieldwatch incidents failed on the demo's table");
      }
      const attack = (await storeView.findIncidents()).flatMap((s) => {
        const incident = s.loaded.state.last ?? s.loaded.state.open;
        return incident === undefined ? [] : [incident.id];
      })[0];
      if (attack !== undefined) {
        println(io.stdout, `\n${colour.bold('The attack')} (shieldwatch incidents show ${attack})`);
        const show = incidentsCommand.subcommands?.[0];
        if (show === undefined || (await show.run({ id: attack, format: 'table' }, demoIo)) !== 0) {
          throw new Error("shieldwatch incidents show failed on the demo's table");
        }
      }
      const filter = (await storeView.querySnapshots({ kind: 'filter' }, {})).map(toHistoryEntry);
      println(io.stdout, `\n${colour.bold('History of the filter status')} (shieldwatch history --filter)`);
      println(
        io.stdout,
        renderTable(
          ['at', 'ok', 'status', 'ms', 'error'],
          filter.map((e) => [
            e.at,
            e.ok ? 'ok' : 'FAIL',
            e.status ?? '-',
            String(e.latencyMs ?? '-'),
            e.error ?? '',
          ]),
        ),
      );
      // The events command itself, with no option, on the demo's table: the section is what it lists.
      println(io.stdout, `\n${colour.bold('Events')} (shieldwatch events)`);
      const listed = await eventsCommand.run({}, { ...io, env: { ...env, SHIELDWATCH_TABLE: DEMO_TABLE } });
      if (listed !== 0) throw new Error(`shieldwatch events failed on the demo's table (exit ${listed})`);
      const edge = (await storeView.querySnapshots({ kind: 'network', networkId: 'edge-1' }, {})).map(
        toHistoryEntry,
      );
      println(
        io.stdout,
        `\n${colour.bold('Incoming packets per second on edge-1')} (shieldwatch history --network edge-1 --chart traffic.in.pps)`,
      );
      println(
        io.stdout,
        renderLineChart(numericSeries(edge, 'traffic.in.pps'), {
          width: Math.max(50, Math.min(100, io.stdout.columns ?? 90)),
          height: 10,
          colour: useColour(io.stdout, io.env),
        }),
      );
      const uptime = computeUptime(await storeView.querySnapshots({ kind: 'filter' }, {}), {
        untilMs: io.now(),
        gapMs: everyMs * 5,
      });
      println(io.stdout, `\n${colour.bold('Uptime')} (shieldwatch uptime)`);
      for (const s of uptime.statuses)
        println(io.stdout, `  ${s.status.padEnd(14)} ${(s.share * 100).toFixed(1)}%`);
      println(io.stdout, `  API availability ${(uptime.availability.share * 100).toFixed(1)}%`);
      println(
        io.stdout,
        `\nDone. Explore the demo's data: SHIELDWATCH_TABLE=${DEMO_TABLE} npx shieldwatch history --filter`,
      );
      println(io.stdout, 'Watch your own API: see README.md (npx shieldwatch check, then poll or run).');
      const reportPath = resolve(process.cwd(), DEFAULT_REPORT_FILE);
      const networks = (simulator.env['SHIELDWATCH_NETWORKS'] ?? '').split(',');
      await buildReportFile(
        { client: fresh.client, table: DEMO_TABLE },
        {
          since: new Date(started - 60_000).toISOString(),
          until: new Date(io.now()).toISOString(),
          networks,
          table: DEMO_TABLE,
          store: fresh.description,
          expected: 'active',
          nowMs: io.now(),
        },
        reportPath,
      );
      println(
        io.stdout,
        `\n${colour.bold('Report')} (shieldwatch report): open it in a browser\n  ${reportPath}`,
      );
      return 0;
    } finally {
      await monitor.close();
      fresh.client.destroy();
      await simulator.close();
    }
  },
});
