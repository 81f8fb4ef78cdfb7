/**
 * The network health judge (lambda/core/detect/network-health.ts) and its texts: sequences of cycles replayed through
 * judgeHealth, the alerts after each; one alert per cycle and kind listing every network; one incident id from
 * trigger to resolve; no evidence from auth failures, cut-short requests, or a cycle in which nothing answered;
 * stale cycles change nothing; nothing changes (nothing to write) while all is well.
 */
import { describe, expect, it } from 'vitest';
import { renderAlert, SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from '../../lambda/core/alerts/alert-text.ts';
import {
  type HealthRule,
  type HealthState,
  healthShardOf,
  judgeHealth,
  type NetworkOutcome,
} from '../../lambda/core/detect/network-health.ts';
import {
  acknowledgeHealthIncident,
  unacknowledgeHealthIncident,
} from '../../lambda/core/incidents/incident-ack.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

const minute = (i: number) => new Date(Date.UTC(2026, 10, 22, 10, i)).toISOString();
const RULES: HealthRule[] = [
  { name: 'pps', path: 'traffic.in_pps', text: 'pps: traffic.in_pps > 50k' },
  { name: 'drop', path: 'dropped.pps', text: 'drop: dropped.pps > 1k' },
];

const ok = (network: string, reads: Record<string, boolean> = { pps: true, drop: true }): NetworkOutcome => ({
  network,
  ok: true,
  readings: reads,
});
const notFound = (network: string): NetworkOutcome => ({
  network,
  ok: false,
  errorKind: 'client',
  httpStatus: 404,
  error: 'HTTP 404 Not Found',
});
const timedOut = (network: string): NetworkOutcome => ({
  network,
  ok: false,
  errorKind: 'transport',
  error: 'timed out after 1000 ms',
});
const rejected = (network: string): NetworkOutcome => ({
  network,
  ok: false,
  errorKind: 'auth',
  httpStatus: 401,
  error: 'HTTP 401',
});

/** Replays cycles a minute apart; per cycle, the alerts as `event incident [networks] (remaining)`. */
function replay(
  cycles: ReadonlyArray<
    readonly NetworkOutcome[] | { networks: readonly NetworkOutcome[]; apiAnswered: boolean }
  >,
  alertAfter = 3,
): { lines: string[][]; alerts: AlertRecord[]; state: HealthState | undefined; changed: boolean[] } {
  let state: HealthState | undefined;
  const lines: string[][] = [];
  const alerts: AlertRecord[] = [];
  const changed: boolean[] = [];
  cycles.forEach((cycle, i) => {
    const { networks, apiAnswered } = 'apiAnswered' in cycle ? cycle : { networks: cycle, apiAnswered: true };
    const judged = judgeHealth(state, {
      at: minute(i),
      alertAfter,
      shard: 0,
      rules: RULES,
      networks,
      apiAnswered,
    });
    if (judged.stale) throw new Error('unexpected stale');
    state = judged.state;
    changed.push(judged.changed);
    alerts.push(...judged.alerts);
    lines.push(
      judged.alerts.map(
        (a) =>
          `${a.event}${a.rule === undefined ? '' : ` ${a.rule}`} ${a.incident} [${(a.members ?? []).map((m) => m.network).join(',')}]` +
          (a.remaining === undefined ? '' : ` (${a.remaining.join(',')})`),
      ),
    );
  });
  return { lines, alerts, state, changed };
}

describe('a network that keeps failing', () => {
  it('alerts once after ALERT_AFTER failed cycles, with its failure, and resolves with the same incident', () => {
    // Act
    const { lines, alerts } = replay([
      [notFound('net-1'), ok('net-2')],
      [notFound('net-1'), ok('net-2')],
      [notFound('net-1'), ok('net-2')],
      [notFound('net-1'), ok('net-2')],
      [ok('net-1'), ok('net-2')],
      [ok('net-1'), ok('net-2')],
    ]);

    // Assess
    const id = `network.unreachable/0/${minute(0)}`;
    expect(lines).toEqual([
      [],
      [],
      [`network.unreachable ${id} [net-1]`],
      [],
      [`network.recovered ${id} [net-1] ()`],
      [],
    ]);
    expect(alerts[0]!.members).toEqual([
      {
        network: 'net-1',
        since: minute(0),
        cycles: 3,
        errorKind: 'client',
        httpStatus: 404,
        error: 'HTTP 404 Not Found',
      },
    ]);
    expect(alerts[1]!.members).toEqual([
      { network: 'net-1', since: minute(0), cycles: 3, errorKind: 'client', httpStatus: 404 },
    ]);
  });

  it('two networks crossing in one cycle: one alert naming both; later ones join the same incident', () => {
    const { lines } = replay([
      [notFound('net-1'), timedOut('net-2'), ok('net-3')],
      [notFound('net-1'), timedOut('net-2'), timedOut('net-3')],
      [notFound('net-1'), timedOut('net-2'), timedOut('net-3')],
      [ok('net-1'), timedOut('net-2'), timedOut('net-3')],
      [ok('net-1'), ok('net-2'), timedOut('net-3')],
      [ok('net-1'), ok('net-2'), ok('net-3')],
    ]);
    const id = `network.unreachable/0/${minute(0)}`;
    expect(lines).toEqual([
      [],
      [],
      [`network.unreachable ${id} [net-1,net-2]`],
      // net-3 crossed while net-1 and net-2 still fail: the same incident, another trigger.
      [`network.recovered ${id} [net-1] (net-2,net-3)`, `network.unreachable ${id} [net-3] (net-2)`],
      [`network.recovered ${id} [net-2] (net-3)`],
      [`network.recovered ${id} [net-3] ()`],
    ]);
  });

  it('a network answering before ALERT_AFTER resets its count: nothing is sent', () => {
    const { lines } = replay([
      [timedOut('n')],
      [timedOut('n')],
      [ok('n')],
      [timedOut('n')],
      [timedOut('n')],
      [ok('n')],
    ]);
    expect(lines.flat()).toEqual([]);
  });

  it.each<[string, (n: string) => NetworkOutcome]>([
    ['a rejected key (api.auth_failed covers it)', rejected],
    ['a request cut short by the operator', (n) => ({ ...timedOut(n), noEvidence: true })],
  ])('%s is no evidence: the count neither grows nor resets', (_, noEvidence) => {
    const { lines } = replay([
      [timedOut('n')],
      [noEvidence('n')],
      [timedOut('n')],
      [noEvidence('n')],
      [timedOut('n')],
    ]);
    expect(lines.map((l) => l.length)).toEqual([0, 0, 0, 0, 1]);
  });

  it('a cycle in which nothing answered is no evidence (api.unreachable is that alert)', () => {
    const down = { networks: [timedOut('n')], apiAnswered: false };
    const { lines } = replay([down, down, down, down, [timedOut('n')]]);
    expect(lines.flat()).toEqual([]);
  });
});

describe('a rule that reads nothing', () => {
  it('one alert per rule listing every network, after ALERT_AFTER answered cycles; resolved with the same incident', () => {
    const blind = (n: string) => ok(n, { pps: false, drop: true });
    const { lines, alerts } = replay(
      [
        [blind('net-1'), blind('net-2')],
        // A failed request is no evidence about the path.
        [timedOut('net-1'), timedOut('net-2')],
        [blind('net-1'), blind('net-2')],
        [ok('net-1'), blind('net-2')],
        [ok('net-1'), ok('net-2')],
      ],
      2,
    );
    const id = `network.rule_unreadable/pps/0/${minute(0)}`;
    expect(lines).toEqual([
      [],
      [],
      [`network.rule_unreadable pps ${id} [net-1,net-2]`],
      [`network.rule_readable pps ${id} [net-1] (net-2)`],
      [`network.rule_readable pps ${id} [net-2] ()`],
    ]);
    expect(alerts[0]).toMatchObject({ path: 'traffic.in_pps', ruleText: 'pps: traffic.in_pps > 50k' });
  });

  it('a rule not read on a network (its `on` leaves it out) is never unreadable there', () => {
    const { lines } = replay(
      [[ok('n', { drop: true })], [ok('n', { drop: true })], [ok('n', { drop: true })]],
      1,
    );
    expect(lines.flat()).toEqual([]);
  });

  it('two rules unreadable in one cycle: one alert each', () => {
    const { lines } = replay([[ok('n', { pps: false, drop: false })]], 1);
    expect(lines[0]).toEqual([
      `network.rule_unreadable pps network.rule_unreadable/pps/0/${minute(0)} [n]`,
      `network.rule_unreadable drop network.rule_unreadable/drop/0/${minute(0)} [n]`,
    ]);
  });
});

describe('order, duplicates and writes', () => {
  it('a cycle not newer than the last applied is stale and changes nothing', () => {
    const first = judgeHealth(undefined, {
      at: minute(5),
      alertAfter: 1,
      shard: 0,
      rules: [],
      networks: [timedOut('n')],
      apiAnswered: true,
    });
    expect(first.stale).toBe(false);
    if (first.stale) return;
    expect(first.alerts.map((a) => a.event)).toEqual(['network.unreachable']);
    for (const at of [minute(5), minute(4)]) {
      expect(
        judgeHealth(first.state, {
          at,
          alertAfter: 1,
          shard: 0,
          rules: [],
          networks: [timedOut('n')],
          apiAnswered: true,
        }),
      ).toEqual({ stale: true });
    }
  });

  it('while all is well nothing changes: no write per cycle', () => {
    const { changed } = replay([
      [ok('a'), ok('b')],
      [ok('a'), ok('b')],
      [timedOut('a'), ok('b')],
      [ok('a'), ok('b')],
      [ok('a'), ok('b')],
    ]);
    expect(changed).toEqual([false, false, true, true, false]);
  });

  it('numbers its alerts from the state', () => {
    const { alerts } = replay([[timedOut('n')], [ok('n')], [timedOut('n')], [ok('n')]], 1);
    expect(alerts.map((a) => a.seq)).toEqual([1, 2, 3, 4]);
    // A new incident after the last one resolved: a new id.
    expect(new Set(alerts.map((a) => a.incident)).size).toBe(2);
  });

  it('a network no longer polled leaves its incident (closed once empty, without a recovery)', () => {
    const { lines, state } = replay([[timedOut('a')], [ok('b')]], 1);
    expect(lines).toEqual([[`network.unreachable network.unreachable/0/${minute(0)} [a]`], []]);
    expect(state?.downIncident).toBeUndefined();
    expect(state?.down).toEqual({});
  });
});

describe('texts', () => {
  const many = Array.from({ length: 40 }, (_, i) => notFound(`edge-network-${i}-\u202e-long-name`));
  const { alerts } = replay(
    [many, many, many, many.map((n) => ok(n.network, { pps: false, drop: false }))],
    3,
  );

  it.each(['network.unreachable', 'network.recovered'])(
    '%s: subject ASCII <= 99, SMS <= 160, each names networks',
    (event) => {
      const alert = alerts.find((a) => a.event === event)!;
      const rendered = renderAlert(alert, { networks: [], monitorName: 'edge-eu' });
      expect(rendered.subject.length).toBeLessThanOrEqual(SUBJECT_MAX_CHARS);
      expect(rendered.sms.length).toBeLessThanOrEqual(SMS_MAX_CHARS);
      expect(rendered.subject).toMatch(/^[ -~]+$/);
      expect(rendered.sms).toMatch(/^[ -~]+$/);
      expect(rendered.subject).toContain('edge-network-0-<U+202E>');
      expect(rendered.subject).toMatch(/\+\d+ more/);
      // The email lists every network with its failure kind and HTTP status.
      for (let i = 0; i < 40; i++) expect(rendered.email).toContain(`edge-network-${i}-<U+202E>-long-name:`);
      expect(rendered.email).toContain('HTTP 404');
      expect(rendered.attributes['event']).toBe(event);
    },
  );

  it('network.unreachable: the failure kind and HTTP status in subject and SMS', () => {
    const two = replay([[notFound('net-1'), timedOut('net-2')]], 1).alerts[0]!;
    const rendered = renderAlert(two, { networks: [], monitorName: 'shieldwatch' });
    expect(rendered.subject).toBe(
      '[shieldwatch] 2 networks unreachable: net-1 (client, HTTP 404), net-2 (transport)',
    );
    expect(rendered.sms).toBe(
      'shieldwatch: 2 networks unreachable: net-1 (client, HTTP 404), net-2 (transport), seen 2026-11-22 10:00 UTC.',
    );
    expect(rendered.email).toContain('error: HTTP 404 Not Found');
    expect(rendered.attributes['action']).toBe('trigger');
    expect(JSON.parse(rendered.sqs)).toMatchObject({
      action: 'trigger',
      incident: `network.unreachable/0/${minute(0)}`,
      networks: [
        { network: 'net-1', errorKind: 'client', httpStatus: 404 },
        { network: 'net-2', errorKind: 'transport' },
      ],
    });
  });

  it('network.rule_unreadable: names the rule and its path; attribute rule', () => {
    const alert = replay([[ok('net-1', { pps: false, drop: true })]], 1).alerts[0]!;
    const rendered = renderAlert(alert, { networks: [] });
    expect(rendered.subject).toBe('[shieldwatch] rule pps reads nothing (traffic.in_pps) on net-1');
    expect(rendered.attributes['rule']).toBe('pps');
    expect(rendered.email).toContain('pps: traffic.in_pps > 50k');
  });

  it('a recovery while others still fail has no action and says how many are left', () => {
    const partial = replay(
      [
        [timedOut('a'), timedOut('b')],
        [ok('a'), timedOut('b')],
      ],
      1,
    ).alerts[1]!;
    const rendered = renderAlert(partial, { networks: [] });
    expect(rendered.subject).toBe('[shieldwatch] network reachable again: a (1 still failing)');
    expect(rendered.attributes['action']).toBeUndefined();
    expect(JSON.parse(rendered.sqs).action).toBeUndefined();
  });
});

describe('its incidents followed: reminders, escalation, acknowledgement (CONTRACT §13-14)', () => {
  const timers = { remindEveryMs: 4 * 60_000, escalateAfterMs: [3 * 60_000, 7 * 60_000] };
  /** Cycles a minute apart with the timers; `ackAt` acknowledges the open incident(s) after that cycle. */
  function follow(
    cycles: ReadonlyArray<readonly NetworkOutcome[]>,
    options: { ackAt?: number; unackAt?: number } = {},
  ): { lines: string[]; state: HealthState | undefined } {
    let state: HealthState | undefined;
    const lines: string[] = [];
    cycles.forEach((networks, i) => {
      const judged = judgeHealth(state, {
        at: minute(i),
        alertAfter: 1,
        shard: 0,
        rules: RULES,
        networks,
        apiAnswered: true,
        ...timers,
      });
      if (judged.stale) throw new Error(`cycle ${i} stale`);
      state = judged.state;
      for (const a of judged.alerts) {
        lines.push(
          `${i} ${a.event} ${String(a.incident).split('/')[0]} stage ${a.stage} [${a.members?.map((m) => m.network).join(',')}]`,
        );
      }
      for (const id of Object.keys(state.incidents ?? {})) {
        if (i === options.ackAt) {
          const acked = acknowledgeHealthIncident(state, id, { by: 'ops', at: minute(i), note: 'on it' });
          if (acked.outcome !== 'acknowledged') throw new Error(acked.outcome);
          state = acked.state;
          lines.push(
            `${i} ${acked.alert?.event} by ${acked.alert?.acknowledgedBy} stage ${acked.alert?.stage}`,
          );
        }
        if (i === options.unackAt)
          state = (unacknowledgeHealthIncident(state, id) as { state: HealthState }).state;
      }
    });
    return { lines, state };
  }
  const failing = (n: number) => Array.from({ length: n }, () => [notFound('edge-1'), ok('edge-2')]);
  const well = [ok('edge-1'), ok('edge-2')];

  it('reminds every REMIND_EVERY and escalates once per stage; the end carries the stage reached', () => {
    const { lines, state } = follow([...failing(10), well]);
    expect(lines).toEqual([
      '0 network.unreachable network.unreachable stage 1 [edge-1]',
      '3 incident.escalated network.unreachable stage 2 [edge-1]',
      '4 incident.reminder network.unreachable stage 2 [edge-1]',
      '7 incident.escalated network.unreachable stage 3 [edge-1]',
      '8 incident.reminder network.unreachable stage 3 [edge-1]',
      '10 network.recovered network.unreachable stage 3 [edge-1]',
    ]);
    expect(state?.incidents).toBeUndefined();
  });

  it('timers a clock ahead wrote are pulled back to the next true cycle: it still reminds and escalates', () => {
    // Prepare: the incident open, its timers written by a process whose clock was 3 h ahead.
    const first = follow(failing(1)).state!;
    const [id] = Object.keys(first.incidents ?? {});
    const ahead = {
      ...first,
      incidents: { [id!]: { ...first.incidents![id!]!, openedAt: minute(180), lastRemindAt: minute(180) } },
    };
    // Act: true cycles at minutes 1..9
    let state: HealthState = ahead;
    const lines: string[] = [];
    for (let i = 1; i <= 9; i++) {
      const judged = judgeHealth(state, {
        at: minute(i),
        alertAfter: 1,
        shard: 0,
        rules: RULES,
        networks: [notFound('edge-1'), ok('edge-2')],
        apiAnswered: true,
        ...timers,
      });
      if (judged.stale) throw new Error(`cycle ${i} stale`);
      state = judged.state;
      lines.push(...judged.alerts.map((a) => `${i} ${a.event} stage ${a.stage}`));
    }
    // Assess: counted from minute 1, the first true cycle after it
    expect(lines).toEqual([
      '4 incident.escalated stage 2',
      '5 incident.reminder stage 2',
      '8 incident.escalated stage 3',
      '9 incident.reminder stage 3',
    ]);
  });

  it('a rule that reads nothing is followed alike, with its rule', () => {
    const blind = Array.from({ length: 5 }, () => [ok('edge-1', { pps: false, drop: true })]);
    const { lines } = follow(blind);
    expect(lines).toEqual([
      '0 network.rule_unreadable network.rule_unreadable stage 1 [edge-1]',
      '3 incident.escalated network.rule_unreadable stage 2 [edge-1]',
      '4 incident.reminder network.rule_unreadable stage 2 [edge-1]',
    ]);
  });

  it('acknowledged: no reminders, no escalations, the acknowledgement once; its end is sent', () => {
    const { lines } = follow([...failing(10), well], { ackAt: 1 });
    expect(lines).toEqual([
      '0 network.unreachable network.unreachable stage 1 [edge-1]',
      '1 incident.acknowledged by ops stage 1',
      '10 network.recovered network.unreachable stage 1 [edge-1]',
    ]);
  });

  it('withdrawn: the escalation due is sent at the next cycle (the highest stage due, in one alert)', () => {
    const { lines } = follow(failing(10), { ackAt: 1, unackAt: 8 });
    expect(lines.slice(2)).toEqual([
      '9 incident.reminder network.unreachable stage 1 [edge-1]',
      '9 incident.escalated network.unreachable stage 3 [edge-1]',
    ]);
  });

  it('acknowledging again, or an incident not open, changes nothing', () => {
    const { state } = follow(failing(2), { ackAt: 1 });
    const id = state!.downIncident!;
    expect(acknowledgeHealthIncident(state!, id, { by: 'link', at: minute(2) }).outcome).toBe('already');
    expect(acknowledgeHealthIncident(state!, `${id}x`, { by: 'link', at: minute(2) }).outcome).toBe(
      'not-open',
    );
    expect(healthShardOf(id)).toBe(0);
    expect(healthShardOf('network.rule_unreadable/pps/12/2026-11-22T10:00:00.000Z')).toBe(12);
    expect(healthShardOf('flood@2026-11-22T10:00:00.000Z')).toBeUndefined();
  });
});
