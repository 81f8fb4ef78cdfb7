/**
 * Switching SHIELDWATCH_GROUP_BY while incidents are open (docs/design/incidents.md, Switching groupBy): real
 * cycles against a loopback API and dynalite, SNS through aws-sdk-client-mock. Every trigger that was
 * published gets exactly one resolve whatever the setting says when it ends: a rule incident open at a switch
 * to `none` carries on until its last member resolves (its members' transitions recorded only, its reminders,
 * escalation and acknowledgement as before), a per-network incident open at a switch to `rule` finishes per
 * network; also while cycles of both settings run at once, and across an SNS outage.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import type { IncidentScopeState } from '../../lambda/core/incidents/incidents.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { StoreError } from '../../lambda/errors.ts';
import { acknowledge } from '../../lambda/incident-acks.ts';
import { mayHaveLanded } from '../../lambda/judges/incidents.ts';
import type { IncidentStore, StateStore } from '../../lambda/ports.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };
const NETWORKS = ['a1', 'a2', 'a3'];

/** One published alert as the channels see it. */
interface Sent {
  readonly event: string;
  readonly incident: string;
  readonly action?: string;
  readonly network?: string;
  readonly networks: readonly string[];
}

describe('switching groupBy while incidents are open (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let snsDown: boolean;
  let accepted: PublishCommandInput[];
  let pps: Record<string, number>;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'group-by-switch-key-0123' });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    snsDown = false;
    accepted = [];
    let ids = 0;
    mockClient(sns)
      .on(PublishCommand)
      .callsFake(async (input: PublishCommandInput) => {
        if (snsDown) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
        accepted.push(input);
        return { MessageId: `m-${++ids}` };
      });
    pps = {};
    api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const monitor = (groupBy: 'rule' | 'none', extra: Record<string, string> = {}): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: NETWORKS.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      SHIELDWATCH_GROUP_BY: groupBy,
      SHIELDWATCH_GROUP_INTERVAL: '1m',
      ...extra,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => now,
    });
  };
  const cycle = (m: Monitor) => runCycle(m.deps, m.settings, now + 15_000);
  const tick = () => {
    now += 60_000;
  };
  /** Cycles of each monitor given, at once, for `n` ticks. */
  const run = async (n: number, ...monitors: Monitor[]) => {
    for (let i = 0; i < n; i++) {
      tick();
      await Promise.all(monitors.map(cycle));
    }
  };
  const sent = (): Sent[] =>
    accepted
      .map((input) => {
        const attributes = input.MessageAttributes ?? {};
        const sqs = JSON.parse(JSON.parse(input.Message!).sqs) as {
          incident: string;
          action?: string;
          networks?: { network: string }[];
        };
        const network = attributes['network']?.StringValue;
        return {
          event: attributes['event']?.StringValue ?? '',
          incident: sqs.incident,
          ...(sqs.action === undefined ? {} : { action: sqs.action }),
          ...(network === undefined ? {} : { network }),
          networks: (sqs.networks ?? []).map((n) => n.network),
        };
      })
      .filter((alert) => alert.event.startsWith('network.rule_') || alert.event.startsWith('incident.'));
  /** `<event> <network>` of the per-network alerts, `<event> [<networks>]` of the incident alerts. */
  const lines = () =>
    sent().map((s) =>
      s.network === undefined ? `${s.event} [${s.networks.join(',')}]` : `${s.event} ${s.network}`,
    );

  /**
   * Exactly once, whatever the setting said: each incident id published is opened (or triggered) once and
   * resolved once, after; a network named by a rule incident's opening or update never had a per-network
   * trigger published; nothing is left open in the store.
   */
  const expectExactlyOnce = async (m: Monitor) => {
    const alerts = sent();
    const byIncident = new Map<string, string[]>();
    for (const alert of alerts) {
      if (alert.action !== 'trigger' && alert.action !== 'resolve') continue;
      byIncident.set(alert.incident, [...(byIncident.get(alert.incident) ?? []), alert.action]);
    }
    for (const [incident, actions] of byIncident) {
      const opened = actions.filter((a) => a === 'trigger').length;
      expect({
        incident,
        first: actions[0],
        last: actions.at(-1),
        resolves: actions.filter((a) => a === 'resolve').length,
      }).toEqual({ incident, first: 'trigger', last: 'resolve', resolves: 1 });
      expect(opened).toBeGreaterThanOrEqual(1);
    }
    const grouped = new Set(
      alerts
        .filter((a) => a.event === 'incident.opened' || a.event === 'incident.updated')
        .flatMap((a) => a.networks),
    );
    const perNetwork = alerts.filter((a) => a.event === 'network.rule_triggered').map((a) => a.network);
    expect(perNetwork.filter((n) => n !== undefined && grouped.has(n))).toEqual([]);
    const scopes = await m.store.findIncidentScopes();
    expect(scopes.map((s) => s.loaded.state.open?.id)).toEqual(scopes.map(() => undefined));
    expect(scopes.map((s) => s.loaded.outbox.length)).toEqual(scopes.map(() => 0));
  };

  it('rule -> none with an incident open: it carries on until its last member resolves; a new trigger is published per network', async () => {
    // Prepare: the attack on a1 and a2 grouped under rule.
    const rule = monitor('rule');
    await cycle(rule);
    pps['a1'] = 600_000;
    pps['a2'] = 700_000;
    await run(1, rule);

    // Act: the switch; a3 triggers (no member), a1 then a2 then a3 resolve.
    const none = monitor('none');
    await run(1, none);
    pps['a3'] = 800_000;
    await run(2, none);
    pps['a1'] = 100;
    await run(1, none);
    const beforeLast = lines();
    pps['a2'] = 100;
    await run(1, none);
    pps['a3'] = 100;
    await run(2, none);

    // Assess
    expect(beforeLast).toEqual(['incident.opened [a2,a1]', 'network.rule_triggered a3']);
    expect(lines()).toEqual([
      'incident.opened [a2,a1]',
      'network.rule_triggered a3',
      'incident.resolved [a2,a1]',
      'network.rule_resolved a3',
    ]);
    const [scope] = await none.store.findIncidents();
    expect(scope?.loaded.state.open).toBeUndefined();
    expect(scope?.loaded.state.last?.members.map((member) => member.network)).toEqual(['a1', 'a2']);
    // Every transition is recorded once either way.
    const events = (await none.store.queryEvents({})).map((e) => `${e.event} ${e.network ?? ''}`.trim());
    expect(events.filter((e) => e.startsWith('network.rule_')).sort()).toEqual(
      ['a1', 'a2', 'a3'].flatMap((n) => [`network.rule_resolved ${n}`, `network.rule_triggered ${n}`]).sort(),
    );
    await expectExactlyOnce(none);
  });

  it('rule -> none removing every rule, with an incident open: the incident resolves all the same, once', async () => {
    // Prepare: the attack on a1 grouped under rule.
    const rule = monitor('rule');
    await cycle(rule);
    pps['a1'] = 600_000;
    await run(1, rule);

    // Act: one edit sets none and removes the rule; the attack goes on.
    const bare = monitor('none', { SHIELDWATCH_RULES: '' });
    await run(2, bare);

    // Assess: no rule watches a1 any more, so it leaves the incident, which resolves (its page closes).
    expect(lines()).toEqual(['incident.opened [a1]', 'incident.resolved [a1]']);
    await expectExactlyOnce(bare);
  });

  it('rule -> none: the open incident still reminds, escalates and can be acknowledged', async () => {
    // Prepare
    const timers = { SHIELDWATCH_REMIND_EVERY: '2m', SHIELDWATCH_ESCALATE_AFTER: '3m' };
    const rule = monitor('rule', timers);
    await cycle(rule);
    pps['a1'] = 600_000;
    await run(1, rule);
    const none = monitor('none', timers);

    // Act: under none, two minutes (a reminder), three (the escalation), then an acknowledgement.
    await run(3, none);
    const id = sent()[0]!.incident;
    const ack = await acknowledge(none.store, id, { by: 'alice', at: new Date(now).toISOString() });
    await run(3, none);
    pps['a1'] = 100;
    await run(1, none);

    // Assess
    expect(ack.outcome).toBe('acknowledged');
    expect(sent().map((s) => `${s.event} ${s.incident === id}`)).toEqual([
      'incident.opened true',
      'incident.reminder true',
      'incident.escalated true',
      'incident.acknowledged true',
      'incident.resolved true',
    ]);
  });

  it('none -> rule with a per-network incident open: it finishes per network; new triggers group', async () => {
    // Prepare: a1 triggered and published per network.
    const none = monitor('none');
    await cycle(none);
    pps['a1'] = 600_000;
    await run(1, none);

    // Act: the switch; a2 triggers; a1 resolves, then a2.
    const rule = monitor('rule');
    await run(1, rule);
    pps['a2'] = 700_000;
    await run(1, rule);
    pps['a1'] = 100;
    await run(1, rule);
    pps['a2'] = 100;
    await run(1, rule);

    // Assess
    expect(lines()).toEqual([
      'network.rule_triggered a1',
      'incident.opened [a2]',
      'network.rule_resolved a1',
      'incident.resolved [a2]',
    ]);
    await expectExactlyOnce(rule);
  });

  it('none -> rule with a per-network incident open: it still reminds and escalates, once per due time (also with duplicated cycles), then resolves', async () => {
    // Prepare: a1 triggered and published per network under none.
    const timers = { SHIELDWATCH_REMIND_EVERY: '2m', SHIELDWATCH_ESCALATE_AFTER: '3m' };
    const none = monitor('none', timers);
    await cycle(none);
    pps['a1'] = 600_000;
    await run(1, none);
    const trigger = sent()[0]!;
    const from = now;

    // Act: the switch, every cycle run twice at once; a2 triggers and groups; five minutes; both resolve.
    const rule = monitor('rule', timers);
    pps['a2'] = 700_000;
    await run(5, rule, rule);
    pps['a1'] = 100;
    pps['a2'] = 100;
    await run(1, rule, rule);

    // Assess: a1's incident (its cell's id) reminds at 2 and 4 minutes, escalates at 3, once each, then resolves.
    const a1 = accepted
      .map((input) => {
        const attributes = input.MessageAttributes ?? {};
        const sqs = JSON.parse(JSON.parse(input.Message!).sqs) as { incident: string; at: string };
        return {
          line: `${(Date.parse(sqs.at) - from) / 60_000} ${attributes['event']?.StringValue}@${attributes['stage']?.StringValue}`,
          incident: sqs.incident,
        };
      })
      .filter((alert) => alert.incident === trigger.incident)
      .map((alert) => alert.line);
    expect(trigger).toMatchObject({ event: 'network.rule_triggered', network: 'a1' });
    expect(a1).toEqual([
      '0 network.rule_triggered@1',
      '2 incident.reminder@1',
      '3 incident.escalated@2',
      '4 incident.reminder@2',
      '6 network.rule_resolved@2',
    ]);
    // a2 joined the rule's incident: its cell neither reminds nor escalates on its own (not even recorded).
    const followUps = (await rule.store.queryEvents({}))
      .filter((e) => e.event.startsWith('incident.') && e.network !== undefined)
      .map((e) => `${e.event} ${e.network}`);
    expect(followUps.filter((line) => line.endsWith(' a2'))).toEqual([]);
    expect(lines().filter((line) => line.includes('a2'))).toEqual([
      'incident.opened [a2]',
      'incident.reminder [a2]',
      'incident.escalated [a2]',
      'incident.reminder [a2]',
      'incident.resolved [a2]',
    ]);
    await expectExactlyOnce(rule);
  });

  it('cycles of rule and none at once (rule -> none): exactly once, and the incident resolves under none', async () => {
    // Prepare: a1 and a3 grouped under rule.
    const rule = monitor('rule');
    const none = monitor('none');
    await cycle(rule);
    pps['a1'] = 600_000;
    pps['a3'] = 600_000;
    await run(1, rule);

    // Act: a deploy's overlap: both settings every tick; a2 triggers and resolves, a1 resolves; then none only.
    await run(1, rule, none);
    pps['a2'] = 700_000;
    await run(2, rule, none);
    pps['a2'] = 100;
    pps['a1'] = 100;
    await run(2, rule, none);
    pps['a3'] = 100;
    await run(2, none);

    // Assess
    expect(sent().filter((s) => s.event === 'incident.resolved')).toHaveLength(1);
    await expectExactlyOnce(none);
  });

  it('cycles of none and rule at once (none -> rule): the per-network incident is never grouped', async () => {
    // Prepare: a1 published per network under none.
    const none = monitor('none');
    const rule = monitor('rule');
    await cycle(none);
    pps['a1'] = 600_000;
    await run(1, none);

    // Act: both settings every tick; a2 triggers, a1 resolves; then rule only, and a2 resolves.
    await run(1, none, rule);
    pps['a2'] = 700_000;
    await run(2, none, rule);
    pps['a1'] = 100;
    await run(2, none, rule);
    pps['a2'] = 100;
    await run(2, rule);

    // Assess
    const mine = lines().filter((line) => line.includes('a1'));
    expect(mine).toEqual(['network.rule_triggered a1', 'network.rule_resolved a1']);
    await expectExactlyOnce(rule);
  });

  it('SNS down across rule -> none: the incident resolve and the new per-network pair go out once, in order', async () => {
    // Prepare
    const rule = monitor('rule');
    await cycle(rule);
    pps['a1'] = 600_000;
    await run(1, rule);
    snsDown = true;

    // Act: under none during the outage a3 triggers and a1 resolves; SNS comes back; then a3 resolves.
    const none = monitor('none');
    await run(1, none);
    pps['a3'] = 800_000;
    await run(1, none);
    pps['a1'] = 100;
    await run(2, none);
    const duringOutage = accepted.length;
    snsDown = false;
    await run(2, none);
    pps['a3'] = 100;
    await run(2, none);

    // Assess
    expect(duringOutage).toBe(1);
    expect(lines()).toEqual([
      'incident.opened [a1]',
      'network.rule_triggered a3',
      'incident.resolved [a1]',
      'network.rule_resolved a3',
    ]);
    await expectExactlyOnce(none);
  });

  it('SNS down across none -> rule: a trigger waiting from none is published per network, then its resolve', async () => {
    // Prepare: a1's trigger waits in its rule item while SNS is down.
    const none = monitor('none');
    await cycle(none);
    snsDown = true;
    pps['a1'] = 600_000;
    await run(1, none);

    // Act: the switch during the outage; a2 triggers; SNS comes back; both resolve.
    const rule = monitor('rule');
    await run(1, rule);
    pps['a2'] = 700_000;
    await run(1, rule);
    snsDown = false;
    await run(1, rule);
    pps['a1'] = 100;
    pps['a2'] = 100;
    await run(2, rule);

    // Assess
    expect(lines()).toEqual([
      'network.rule_triggered a1',
      'incident.opened [a2]',
      'network.rule_resolved a1',
      'incident.resolved [a2]',
    ]);
    await expectExactlyOnce(rule);
  });

  /** An incident item's store whose commit DynamoDB refuses (400, ValidationException): nothing is written. */
  const refused = (store: StateStore<IncidentScopeState>): StateStore<IncidentScopeState> => {
    const wrapped: StateStore<IncidentScopeState> = Object.assign(Object.create(store), {
      commit: async () => {
        throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
          name: 'ValidationException',
          $metadata: { httpStatusCode: 400 },
        });
      },
      withSignal: () => wrapped,
    }) as StateStore<IncidentScopeState>;
    return wrapped;
  };

  /** The incident item's store whose commit lands in DynamoDB but reports a failure (a lost answer, a timeout). */
  const lossy = (m: Monitor): IncidentStore => {
    const wrap = (store: StateStore<IncidentScopeState>): StateStore<IncidentScopeState> => {
      const wrapped: StateStore<IncidentScopeState> = Object.assign(Object.create(store), {
        commit: async (...args: Parameters<StateStore<IncidentScopeState>['commit']>) => {
          await store.commit(...args);
          throw Object.assign(new Error('socket hang up after the write'), { name: 'TimeoutError' });
        },
        withSignal: () => wrapped,
      }) as StateStore<IncidentScopeState>;
      return wrapped;
    };
    const lossyStore: IncidentStore = {
      members: m.store.members,
      incidentScope: (rule) => wrap(m.store.incidentScope(rule)),
      findIncidentScopes: async () =>
        (await m.store.findIncidentScopes()).map((f) => ({ ...f, store: wrap(f.store) })),
      withSignal: () => lossyStore,
    };
    return lossyStore;
  };

  it('groupBy=rule: an incident write that lands but reports a failure: the next cycle decides from the item, each trigger gets one resolve (found by an outside review)', async () => {
    // Prepare
    const rule = monitor('rule');
    await cycle(rule);
    pps['a1'] = 600_000;

    // Act: the cycle that triggers a1 writes the incident item, but its answer is lost.
    tick();
    await runCycle({ ...rule.deps, incidents: lossy(rule) }, rule.settings, now + 15_000).catch(
      () => undefined,
    );
    await run(2, rule);
    pps['a1'] = 100;
    await run(2, rule);

    // Assess: each published trigger has exactly one resolve; no network both per network and grouped.
    await expectExactlyOnce(rule);
  });

  it('groupBy=rule: a member triggering again in a cycle whose incident write lands but reports a failure: one trigger, one resolve', async () => {
    // Prepare: a1 and a2 grouped.
    const rule = monitor('rule');
    await cycle(rule);
    pps['a1'] = 600_000;
    pps['a2'] = 600_000;
    await run(1, rule);
    pps['a1'] = 100;
    await run(1, rule);

    // Act: a1 triggers again; the incident write lands, its answer is lost.
    pps['a1'] = 600_000;
    tick();
    await runCycle({ ...rule.deps, incidents: lossy(rule) }, rule.settings, now + 15_000).catch(
      () => undefined,
    );
    await run(2, rule);
    pps['a1'] = 100;
    pps['a2'] = 100;
    await run(2, rule);

    // Assess
    await expectExactlyOnce(rule);
  });

  it('groupBy=rule: an incident write DynamoDB refused (a 4xx applies nothing): the trigger goes per network that cycle, then its resolve', async () => {
    // Prepare: the incident item's commit answered by a validation error, nothing written.
    const rule = monitor('rule');
    await cycle(rule);
    pps['a1'] = 600_000;
    const refusing: IncidentStore = {
      members: rule.store.members,
      incidentScope: (name) => refused(rule.store.incidentScope(name)),
      findIncidentScopes: async () =>
        (await rule.store.findIncidentScopes()).map((f) => ({ ...f, store: refused(f.store) })),
      withSignal: () => refusing,
    };

    // Act
    tick();
    await runCycle({ ...rule.deps, incidents: refusing }, rule.settings, now + 15_000).catch(() => undefined);
    const thatCycle = lines();
    await run(2, rule);
    pps['a1'] = 100;
    await run(2, rule);

    // Assess: sent at once, per network (no incident could hold it), and never grouped later
    expect(thatCycle).toEqual(['network.rule_triggered a1']);
    expect(lines()).toEqual(['network.rule_triggered a1', 'network.rule_resolved a1']);
    await expectExactlyOnce(rule);
  });

  it('mayHaveLanded: only a 4xx answer says the write did not land', () => {
    const answered = (status: number) =>
      Object.assign(new Error('refused'), { $metadata: { httpStatusCode: status } });
    expect(mayHaveLanded(answered(400))).toBe(false);
    expect(mayHaveLanded(new StoreError('cannot write', { cause: answered(400) }))).toBe(false);
    expect(mayHaveLanded(answered(500))).toBe(true);
    expect(mayHaveLanded(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))).toBe(true);
    expect(mayHaveLanded('not an error')).toBe(true);
  });
});
