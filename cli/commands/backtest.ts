import { ConfigError, loadNetworksConfig, loadStoreConfig } from '../../lambda/config.ts';
import { compactValue } from '../../lambda/core/alerts/incident-alert-text.ts';
import { replayIncidents } from '../../lambda/core/incidents/incident-replay.ts';
import { DEFAULT_GROUP_INTERVAL_MS } from '../../lambda/core/incidents/incidents.ts';
import { ruleNetworks } from '../../lambda/core/rules/rule-eval.ts';
import { conditionOf } from '../../lambda/core/rules/rule-kinds/index.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { defineCommand, formatOption, timeWindow, WINDOW_OPTIONS } from '../args.ts';
import { replayHistory } from '../backtest/read-history.ts';
import { renderAlertTable, renderCounts, toBacktestAlert } from '../backtest/render.ts';
import { printable, printableJson, renderTable, UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** Every problem with the settings at once: the store, the networks, and the rules (named by their source). */
function readSettings(values: { readonly rules: string | undefined }, env: CliIo['env']) {
  const problems: string[] = [];
  const attempt = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return fallback;
    }
  };
  const store = attempt(() => loadStoreConfig(env), undefined);
  const configured = attempt(() => loadNetworksConfig(env), []);
  const given = values.rules;
  const source = given === undefined ? SETTINGS.rules.env : '--rules';
  const text = given ?? env[SETTINGS.rules.env] ?? '';
  const parsed = parseRules(text);
  problems.push(...parsed.problems.map((problem) => `${source}: ${problem}`));
  if (problems.length > 0) throw new ConfigError(problems);
  if (parsed.rules.length === 0) {
    throw new UsageError(
      `no rules to replay: ${source} is empty. Set ${SETTINGS.rules.env} or give --rules 'NAME: PATH OP VALUE [for N] [on ID,...]'`,
    );
  }
  // The configured networks, then the networks the rules name with `on` (backtest needs no SHIELDWATCH_NETWORKS).
  const networks = [...new Set([...configured, ...parsed.rules.flatMap((rule) => rule.networks ?? [])])];
  return { store: store!, rules: parsed.rules, networks };
}

export const backtestCommand = defineCommand({
  name: 'backtest',
  usage: ['backtest [--since 7d|ISO] [--until ...] [--rules TEXT] [--format table|json]'],
  description: [
    'Replays the stored real-time snapshots of the networks the rules watch (SHIELDWATCH_NETWORKS and',
    "the rules' on networks) through the traffic rules, cycle by cycle and oldest first, exactly as the",
    'monitor judges them, and prints the alerts they would have sent and a count per rule and network:',
    'values read, their range, triggered, resolved, and the state at the end (open, closed, learning).',
    'It sends nothing and changes nothing in the store. See docs/rules.md, Tuning a rule with backtest.',
  ].join('\n'),
  options: {
    since: {
      ...WINDOW_OPTIONS.since,
      description: `${WINDOW_OPTIONS.since.description}; rules start afresh there (a baseline rule learns again)`,
    },
    until: WINDOW_OPTIONS.until,
    rules: {
      type: 'string',
      value: 'TEXT',
      description:
        "these rules instead of SHIELDWATCH_RULES, in the same grammar: 'NAME: PATH OP VALUE [for N] [on ID,...]', separated by ; or newlines",
    },
    format: formatOption(
      'json is an array of {at, event, rule, network, value}, oldest first (the counts then go to stderr)',
    ),
  },
  examples: [
    'backtest --since 7d',
    "backtest --since 30d --rules 'flood: traffic.in.pps > 50000 for 3'",
    'backtest --format json > alerts.json',
  ],
  notes: [
    'Needs the store settings, and SHIELDWATCH_RULES unless --rules is given; nothing of the API.',
    'A failed snapshot, or one whose body was not stored, is no evidence, as in the monitor.',
  ].join('\n'),
  async run(values, io: CliIo) {
    const format = values.format;
    const window = timeWindow(values, io.now());
    const { store: storeConfig, rules, networks } = readSettings(values, io.env);
    const watched = networks.filter((network) =>
      rules.some((rule) => ruleNetworks(rule, networks).includes(network)),
    );
    if (watched.length === 0) {
      throw new UsageError(
        `no network to replay: ${SETTINGS.networks.env} is empty and no rule names networks with "on"`,
      );
    }
    const store = await openStore(io.env, storeConfig.table, { readOnly: true });
    const progress = io.stderr.isTTY === true;
    let read = 0;
    try {
      const { alerts, replay } = await storeCall(store, () =>
        replayHistory({
          client: store.client,
          table: storeConfig.table,
          rules,
          networks: watched,
          ...(window.since === undefined ? {} : { since: window.since }),
          ...(window.until === undefined ? {} : { until: window.until }),
          ...(progress
            ? {
                onPage: (n: number) => {
                  read += n;
                  io.stderr.write(`\rread ${read} snapshots...`);
                },
              }
            : {}),
        }),
      );
      if (progress) io.stderr.write('\r\u001b[K');
      const summary =
        replay.cycles === 0
          ? `no stored snapshots of ${watched.length} network(s) in that window: nothing to replay`
          : `replayed ${replay.cycles} cycle(s) of ${watched.length} network(s), ${replay.firstAt} to ${replay.lastCycleAt}: ` +
            `${alerts.length} alert(s) would have been sent (none was sent)`;
      const counts = renderCounts(replay.counts());
      // What SHIELDWATCH_GROUP_BY=rule (the default) would have published instead (docs/alerts.md, Incidents).
      const grouped = replayIncidents(
        alerts,
        rules.map((rule) => ({ name: rule.name, text: rule.text, condition: conditionOf(rule) })),
        DEFAULT_GROUP_INTERVAL_MS,
      );
      const incidents =
        grouped.incidents.length === 0
          ? 'incidents (SHIELDWATCH_GROUP_BY=rule): none'
          : `incidents (SHIELDWATCH_GROUP_BY=rule, group interval 5m): ${grouped.incidents.length} incident(s), ` +
            `${grouped.alerts.length} incident alert(s) instead of ${alerts.length}\n` +
            renderTable(
              ['rule', 'opened', 'resolved', 'networks', 'worst peak'],
              grouped.incidents.map((incident) => {
                const peaks = incident.networks.flatMap((n) => (typeof n.peak === 'number' ? [n.peak] : []));
                return [
                  printable(incident.rule ?? '-'),
                  incident.openedAt,
                  incident.resolvedAt ?? 'open',
                  String(incident.networks.length),
                  peaks.length === 0 ? '-' : compactValue(Math.max(...peaks)),
                ];
              }),
            );
      if (format === 'json') {
        println(io.stdout, printableJson(alerts.map(toBacktestAlert), 2));
        println(io.stderr, `${counts}\n${incidents}\n${summary}`);
      } else {
        println(io.stdout, `${renderAlertTable(rules, alerts)}\n\n${counts}\n\n${incidents}\n\n${summary}`);
      }
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
