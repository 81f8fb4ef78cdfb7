/**
 * The monitor's own incidents (the status away from the expected one, the API's) acknowledged and escalated
 * (CONTRACT §14; docs/acknowledge.md): decide's reminders and escalations over their timers, the pure
 * acknowledgement over the monitor state, the codec of items written before the timers, and the family that
 * renders their `incident.*` alerts.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../lambda/core/alerts/alert-families/index.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from '../../lambda/core/alerts/alert-limits.ts';
import { renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import {
  type CycleObservation,
  type DecideSettings,
  decide,
  type MonitorState,
  monitorStateOf,
  type RequestOutcome,
} from '../../lambda/core/detect/decide.ts';
import {
  acknowledgeMonitorIncident,
  openMonitorIncidentView,
  unacknowledgeMonitorIncident,
} from '../../lambda/core/incidents/incident-ack.ts';
import {
  isMonitorIncidentAlert,
  monitorIncidentOpenerOf,
  toMonitorIncidentTimers,
} from '../../lambda/core/incidents/monitor-incidents.ts';
import { afterAlert, dueAnnouncements, type Silence } from '../../lambda/core/silences/silence.ts';
import { silenceMatches } from '../../lambda/core/silences/silence-window.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

/** Observation time of minute `i`. */
const at = (i: number) => new Date(Date.UTC(2026, 4, 1, 10, i)).toISOString();
const OK: RequestOutcome = { ok: true, httpStatus: 200 };
const TIMEOUT: RequestOutcome = { ok: false, errorKind: 'transport', error: 'timed out after 5000 ms' };
const seen = (i: number, status: string): CycleObservation => ({
  at: at(i),
  filter: { ok: true, status },
  outcomes: [OK],
});
const down = (i: number): CycleObservation => ({
  at: at(i),
  filter: { ok: false, errorKind: 'transport', error: 'timed out after 5000 ms' },
  outcomes: [TIMEOUT],
});

const BASE: DecideSettings = { alertAfter: 3, confirmations: 1, expectedStatus: 'on' };

/** Runs the minutes `from..to` (inclusive) with `observe`, and returns each alert as `event@minute#stage`. */
function run(
  state: MonitorState | undefined,
  from: number,
  to: number,
  observe: (i: number) => CycleObservation,
  settings: DecideSettings,
): { state: MonitorState | undefined; alerts: string[]; records: AlertRecord[] } {
  const alerts: string[] = [];
  const records: AlertRecord[] = [];
  let current = state;
  for (let i = from; i <= to; i++) {
    const decision = decide(current, observe(i), settings);
    current = decision.state;
    for (const alert of decision.alerts) {
      alerts.push(`${alert.event}@${i}#${alert.stage ?? 1}`);
      records.push(alert);
    }
  }
  return { state: current, alerts, records };
}

describe('decide: the status away escalates and is acknowledged (CONTRACT §14)', () => {
  const settings: DecideSettings = {
    ...BASE,
    remindEveryMs: 15 * 60_000,
    escalateAfterMs: [10 * 60_000, 30 * 60_000],
  };
  const away = `filter.status_changed/${at(1)}`;

  it('escalates once per stage, reminds at the stage reached, and the change back carries the last stage', () => {
    // Prepare / Act: baseline, away at minute 1 for 40 minutes, back at 41.
    const first = run(undefined, 0, 0, (i) => seen(i, 'on'), settings);
    const during = run(first.state, 1, 40, (i) => seen(i, 'off'), settings);
    const back = run(during.state, 41, 41, (i) => seen(i, 'on'), settings);

    // Assess
    expect(during.alerts).toEqual([
      'filter.status_changed@1#1',
      'incident.escalated@11#2',
      'filter.status_reminder@16#2',
      // At 31: the reminder due at the stage reached, then the next stage.
      'filter.status_reminder@31#2',
      'incident.escalated@31#3',
    ]);
    for (const record of during.records) expect(record.incident).toBe(away);
    const escalated = during.records[1]!;
    expect(escalated).toMatchObject({
      to: 'off',
      expected: 'on',
      severity: 'high',
      openedAt: at(1),
      stage: 2,
    });
    expect(during.state?.incidentTimers?.[away]).toMatchObject({ openedAt: at(1), stage: 3 });
    expect(back.alerts).toEqual(['filter.status_changed@41#3']);
    expect(back.records[0]).toMatchObject({ severity: 'resolved', incident: away });
    expect(back.state?.incidentTimers).toBeUndefined();
  });

  it('acknowledged: no reminder, no escalation; the change back is still sent; unack resumes both', () => {
    // Prepare
    const opened = run(
      run(undefined, 0, 0, (i) => seen(i, 'on'), settings).state,
      1,
      5,
      (i) => seen(i, 'off'),
      settings,
    );
    const ack = acknowledgeMonitorIncident(opened.state!, away, { by: 'alice', at: at(5), note: 'on it' });
    if (ack.outcome !== 'acknowledged') throw new Error(ack.outcome);

    // Act
    const quiet = run(ack.state, 6, 40, (i) => seen(i, 'off'), settings);
    const again = acknowledgeMonitorIncident(quiet.state!, away, { by: 'bob', at: at(40) });
    const withdrawn = unacknowledgeMonitorIncident(quiet.state!, away);
    if (withdrawn.outcome !== 'unacknowledged') throw new Error(withdrawn.outcome);
    const resumed = run(withdrawn.state, 41, 41, (i) => seen(i, 'off'), settings);
    const back = run(resumed.state, 42, 42, (i) => seen(i, 'on'), settings);

    // Assess
    expect(ack.alert).toMatchObject({
      event: 'incident.acknowledged',
      incident: away,
      seq: opened.state!.nextSeq,
      acknowledgedBy: 'alice',
      detail: 'on it',
      to: 'off',
    });
    expect(ack.state.nextSeq).toBe(opened.state!.nextSeq + 1);
    expect(quiet.alerts).toEqual([]);
    expect(again.outcome).toBe('already');
    // Overdue after 40 minutes: straight to the highest stage due, and the reminder due.
    expect(resumed.alerts).toEqual(['filter.status_reminder@41#1', 'incident.escalated@41#3']);
    expect(back.alerts).toEqual(['filter.status_changed@42#3']);
  });

  it('refuses an id that is not open: another time, the change back done, a rule or blind spot id', () => {
    const opened = run(
      run(undefined, 0, 0, (i) => seen(i, 'on'), settings).state,
      1,
      2,
      (i) => seen(i, 'off'),
      settings,
    );
    const back = run(opened.state, 3, 3, (i) => seen(i, 'on'), settings);
    const ack = (state: MonitorState, id: string) =>
      acknowledgeMonitorIncident(state, id, { by: 'a', at: at(3) }).outcome;

    expect(ack(opened.state!, `filter.status_changed/${at(2)}`)).toBe('not-open');
    expect(ack(back.state!, away)).toBe('not-open');
    expect(ack(opened.state!, 'flood@2026-05-01T10:01:00.000Z')).toBe('not-open');
    expect(ack(opened.state!, `api.unreachable/${at(1)}`)).toBe('not-open');
    expect(openMonitorIncidentView(opened.state!, away)).toMatchObject({ id: away, stage: 1, networks: [] });
  });
});

describe('decide: the API incidents remind and escalate (CONTRACT §14)', () => {
  const settings: DecideSettings = { ...BASE, remindEveryMs: 10 * 60_000, escalateAfterMs: [5 * 60_000] };
  const id = `api.unreachable/${at(1)}`;

  it('incident.reminder every REMIND_EVERY and incident.escalated from the opening; the recovery carries the stage', () => {
    // Act: reachable at 0, unreachable from 1 (opens at 3, the third failing cycle) to 24, reachable at 25.
    const first = run(undefined, 0, 0, (i) => seen(i, 'on'), settings);
    const during = run(first.state, 1, 24, down, settings);
    const after = run(during.state, 25, 25, (i) => seen(i, 'on'), settings);

    // Assess
    expect(during.alerts).toEqual([
      'api.unreachable@3#1',
      'incident.escalated@8#2',
      'incident.reminder@13#2',
      'incident.reminder@23#2',
    ]);
    expect(during.records.map((r) => r.incident)).toEqual([id, id, id, id]);
    expect(during.records[2]).toMatchObject({ openedAt: at(3), detail: 'timed out after 5000 ms' });
    expect(after.alerts).toEqual(['api.recovered@25#2']);
    expect(after.state?.incidentTimers).toBeUndefined();
  });

  it('acknowledged: neither; the recovery still goes out', () => {
    const opened = run(run(undefined, 0, 0, (i) => seen(i, 'on'), settings).state, 1, 3, down, settings);
    const ack = acknowledgeMonitorIncident(opened.state!, id, { by: 'link', at: at(3) });
    if (ack.outcome !== 'acknowledged') throw new Error(ack.outcome);

    const during = run(ack.state, 4, 30, down, settings);
    const after = run(during.state, 31, 31, (i) => seen(i, 'on'), settings);

    expect(ack.alert).toMatchObject({ event: 'incident.acknowledged', incident: id, acknowledgedBy: 'link' });
    expect(during.alerts).toEqual([]);
    expect(after.alerts).toEqual(['api.recovered@31#1']);
  });

  it('without REMIND_EVERY or ESCALATE_AFTER nothing new is sent (as before)', () => {
    const plain = run(run(undefined, 0, 0, (i) => seen(i, 'on'), BASE).state, 1, 60, down, BASE);
    expect(plain.alerts).toEqual(['api.unreachable@3#1']);
    expect(plain.records[0]!.stage).toBeUndefined();
  });
});

describe('the monitor state item written before the timers', () => {
  it('reads as it is, and an incident open in it escalates by the age its id names', () => {
    // Prepare: an item of the previous release, away since minute 1, no timers.
    const old: MonitorState = {
      status: 'off',
      statusSince: at(1),
      lastObservationAt: at(20),
      incidents: {
        auth: { count: 0, open: false },
        unreachable: { count: 0, open: false },
        unreadable: { count: 0, open: false },
      },
      nextSeq: 4,
      awayIncident: `filter.status_changed/${at(1)}`,
    };

    // Act
    const read = monitorStateOf(structuredClone(old));
    const next = decide(read, seen(21, 'off'), { ...BASE, escalateAfterMs: [10 * 60_000] });

    // Assess
    expect(read).toEqual(old);
    expect(next.alerts).toEqual([
      expect.objectContaining({ event: 'incident.escalated', stage: 2, seq: 4, openedAt: at(1) }),
    ]);
  });

  it('leaves out damaged timers and keeps good ones', () => {
    const timers = toMonitorIncidentTimers({
      good: { openedAt: at(1), stage: 2, acknowledged: { by: 'a', at: at(2), note: 'n' }, ackRev: 1 },
      noStage: { openedAt: at(1) },
      text: 'x',
      badAck: { openedAt: at(1), stage: 1, acknowledged: { by: 3 } },
    });
    expect(timers).toEqual({
      good: { openedAt: at(1), stage: 2, acknowledged: { by: 'a', at: at(2), note: 'n' }, ackRev: 1 },
      badAck: { openedAt: at(1), stage: 1 },
    });
    expect(toMonitorIncidentTimers('nonsense')).toBeUndefined();
  });
});

describe('incident.* alerts of the monitor incidents: their family and texts', () => {
  const base = { seq: 9, at: at(40), openedAt: at(1) };
  const away = `filter.status_changed/${at(1)}`;

  it.each([
    ['filter.status_changed/2026-05-01T10:01:00.000Z', 'filter.status_changed'],
    ['api.unreachable/2026-05-01T10:01:00.000Z', 'api.unreachable'],
    ['api.auth_failed/2026-05-01T10:01:00.000Z', 'api.auth_failed'],
    ['filter.status_unreadable/2026-05-01T10:01:00.000Z', 'filter.status_unreadable'],
    ['network.unreachable/0/2026-05-01T10:01:00.000Z', undefined],
    ['flood@2026-05-01T10:01:00.000Z', undefined],
    ['api.unreachable/yesterday', undefined],
    ['api.recovered/2026-05-01T10:01:00.000Z', undefined],
  ])('%s is opened by %s', (id, opener) => {
    expect(monitorIncidentOpenerOf(id)).toBe(opener);
  });

  it('routes by the id and the shape; a rule incident and a blind spot keep their families', () => {
    const status = { ...base, event: 'incident.escalated', incident: away } as AlertRecord;
    const api = { ...base, event: 'incident.escalated', incident: `api.unreachable/${at(1)}` } as AlertRecord;
    const rule = {
      ...base,
      event: 'incident.escalated',
      incident: 'flood@x',
      story: { members: [] },
    } as unknown as AlertRecord;
    const blind = {
      ...base,
      event: 'incident.escalated',
      incident: `network.unreachable/0/${at(1)}`,
      members: [],
    } as AlertRecord;
    expect(isMonitorIncidentAlert(status)).toBe(true);
    expect(isMonitorIncidentAlert(rule)).toBe(false);
    expect(isMonitorIncidentAlert(blind)).toBe(false);
    expect(familyOf(status)).toBe(familyOf({ event: 'filter.status_changed' }));
    expect(familyOf(api)).toBe(familyOf({ event: 'api.unreachable' }));
    expect(familyOf(rule)).toBe(familyOf({ event: 'incident.opened' }));
    expect(familyOf(blind)).toBe(familyOf({ event: 'network.unreachable' }));
  });

  it('by its shape when the id says nothing (a hostile one): a status named is the status family, else the API', () => {
    const hostile = { ...base, event: 'incident.escalated', incident: '\u0000' } as AlertRecord;
    const newer = { ...base, event: 'incident.escalated_to_mars', incident: `api.unreachable/${at(1)}` };
    expect(familyOf({ ...hostile, to: 'off' })).toBe(familyOf({ event: 'filter.status_changed' }));
    expect(familyOf(hostile)).toBe(familyOf({ event: 'api.unreachable' }));
    expect(isMonitorIncidentAlert(newer)).toBe(false);
    expect(isMonitorIncidentAlert({ ...hostile, rule: 'flood' })).toBe(false);
  });

  it.each<[string, AlertRecord, { subject: string; sms: RegExp; action?: string; stage: string }]>([
    [
      'a status escalation',
      {
        ...base,
        event: 'incident.escalated',
        incident: away,
        stage: 2,
        to: 'off',
        expected: 'on',
        severity: 'high',
      },
      {
        subject: '[sw] ESCALATED stage 2: filter status still off, expected on',
        sms: /^sw: ESCALATED stage 2: filter status still "off" \(expected "on"\), for 39m, seen/,
        action: 'trigger',
        stage: '2',
      },
    ],
    [
      'a status acknowledgement',
      {
        ...base,
        event: 'incident.acknowledged',
        incident: away,
        to: 'off',
        acknowledgedBy: 'alice',
        detail: 'on it',
      },
      {
        subject: '[sw] ACK by alice: filter status still off (away)',
        sms: /^sw: ACK by alice: filter status still "off", away for 39m, seen/,
        action: 'acknowledge',
        stage: '1',
      },
    ],
    [
      'an API reminder',
      { ...base, event: 'incident.reminder', incident: `api.unreachable/${at(1)}`, detail: 'timed out' },
      {
        subject: '[sw] REMINDER API still unreachable',
        sms: /^sw: REMINDER the API is still unreachable, for 39m/,
        stage: '1',
      },
    ],
    [
      'an API key escalation',
      { ...base, event: 'incident.escalated', incident: `api.auth_failed/${at(1)}`, stage: 3 },
      {
        subject: '[sw] ESCALATED stage 3: API key still rejected',
        sms: /^sw: ESCALATED stage 3: the API key is still rejected/,
        action: 'trigger',
        stage: '3',
      },
    ],
    [
      'an unreadable status acknowledged',
      {
        ...base,
        event: 'incident.acknowledged',
        incident: `filter.status_unreadable/${at(1)}`,
        acknowledgedBy: 'link',
      },
      {
        subject: '[sw] ACK by link: Filter status still unreadable',
        sms: /^sw: ACK by link: the filter status still cannot be read/,
        action: 'acknowledge',
        stage: '1',
      },
    ],
  ])('%s names what the incident is', (_name, record, expected) => {
    // Act
    const rendered = renderAlert(record, { monitorName: 'sw', networks: [] });
    const document = JSON.parse(rendered.sqs) as Record<string, unknown>;

    // Assess
    expect(rendered.subject).toBe(expected.subject);
    expect(rendered.sms).toMatch(expected.sms);
    expect(rendered.subject.length).toBeLessThanOrEqual(SUBJECT_MAX_CHARS);
    expect(rendered.sms.length).toBeLessThanOrEqual(SMS_MAX_CHARS);
    expect(rendered.attributes['action']).toBe(expected.action);
    expect(rendered.attributes['stage']).toBe(expected.stage);
    expect(rendered.attributes['incident']).toBe(record.incident);
    expect(document['stage']).toBe(Number(expected.stage));
    expect(rendered.email).toContain(`Incident:               ${record.incident}`);
    expect(rendered.email).not.toContain('traffic rule');
  });

  it('a change back or a recovery after an escalation carries the stage in its attribute and its sqs document', () => {
    const back = renderAlert(
      {
        seq: 9,
        at: at(40),
        event: 'filter.status_changed',
        from: 'off',
        to: 'on',
        expected: 'on',
        severity: 'resolved',
        incident: away,
        stage: 3,
      } as AlertRecord,
      { monitorName: 'sw', networks: [] },
    );
    const recovered = renderAlert(
      {
        seq: 9,
        at: at(40),
        event: 'api.recovered',
        incident: `api.unreachable/${at(1)}`,
        stage: 2,
      } as AlertRecord,
      { monitorName: 'sw', networks: [] },
    );
    const plain = renderAlert(
      { seq: 9, at: at(40), event: 'api.recovered', incident: `api.unreachable/${at(1)}` } as AlertRecord,
      { monitorName: 'sw', networks: [] },
    );
    expect(back.attributes).toMatchObject({ stage: '3', action: 'resolve' });
    expect(JSON.parse(back.sqs)).toMatchObject({ stage: 3, action: 'resolve' });
    expect(recovered.attributes['stage']).toBe('2');
    expect(JSON.parse(recovered.sqs).stage).toBe(2);
    expect(plain.attributes['stage']).toBe('1');
    expect(JSON.parse(plain.sqs).stage).toBeUndefined();
  });

  it('an acknowledgement says who and the note in its email', () => {
    const rendered = renderAlert(
      {
        ...base,
        event: 'incident.acknowledged',
        incident: away,
        to: 'off',
        acknowledgedBy: 'alice',
        detail: 'on it',
      } as AlertRecord,
      { monitorName: 'sw', networks: [] },
    );
    expect(rendered.email).toMatch(/Acknowledged by: +alice/);
    expect(rendered.email).toMatch(/Note: +on it/);
    expect(rendered.email.split('\n')[0]).toMatch(/^Someone took the incident below \(the filter status/);
    expect(JSON.parse(rendered.sqs)).toMatchObject({ acknowledgedBy: 'alice', since: at(1) });
  });
});

describe("silences and the monitor's incidents' incident.* alerts", () => {
  const api = `api.unreachable/${at(1)}`;
  const away = `filter.status_changed/${at(1)}`;

  it("a silence of every incident.* event holds them, as it holds a rule's", () => {
    expect(silenceMatches('incident.*', 'incident.escalated', api)).toBe(true);
    expect(silenceMatches('*', 'incident.reminder', away)).toBe(true);
  });

  // Matched as what opened them (silence-window.ts followUpOpener), never as a rule incident's.
  it("a network.* silence leaves the API's escalation alone", () => {
    expect(silenceMatches('network.*', 'incident.escalated', api)).toBe(false);
    expect(silenceMatches('network.rule_triggered', 'incident.reminder', away)).toBe(false);
  });
  it("an api.* silence holds the API's escalation, a filter.* silence the status's", () => {
    expect(silenceMatches('api.*', 'incident.escalated', api)).toBe(true);
    expect(silenceMatches('filter.*', 'incident.escalated', away)).toBe(true);
    expect(silenceMatches('api.*', 'incident.escalated', away)).toBe(false);
  });

  it('an escalation held back of an incident opened before the silence is announced at its end as what opened it', () => {
    const s: Silence = {
      id: 's-aaaaaaaa',
      startsAt: at(2),
      endsAt: at(30),
      pattern: 'api.*',
      createdAt: at(2),
    };
    const escalated: AlertRecord = {
      seq: 4,
      event: 'incident.escalated',
      at: at(10),
      incident: api,
      stage: 2,
    };
    const { held, suppressedBy } = afterAlert({}, escalated, false, s);
    expect(suppressedBy).toBe(s.id);
    const [alert] = dueAnnouncements(held, [s], Date.parse(at(31))).alerts;
    const rendered = renderAlert({ ...alert!, seq: 5 }, { networks: [], monitorName: 'shieldwatch' });
    expect(rendered.subject).toBe('[shieldwatch] still API unreachable after silence s-aaaaaaaa');
    expect(rendered.attributes).toMatchObject({ stage: '2', incident: api, action: 'trigger' });
  });
});

describe('a clock ahead and the timers of the monitor incidents (found by an outside review)', () => {
  it('an API incident opened by a cycle 3 h ahead still reminds and escalates, counted from the next true cycle', () => {
    const t0 = Date.UTC(2026, 4, 1, 10, 0);
    const atMs = (min: number) => t0 + min * 60_000;
    const failed = { ok: false as const, errorKind: 'transport' as const, error: 'timed out' };
    const down = (ms: number): CycleObservation => ({
      at: new Date(ms).toISOString(),
      filter: failed,
      outcomes: [failed],
    });
    const up = (ms: number): CycleObservation => ({
      at: new Date(ms).toISOString(),
      filter: { ok: true, status: 'active' },
      outcomes: [{ ok: true, httpStatus: 200 }],
    });
    const settings: DecideSettings = {
      alertAfter: 3,
      confirmations: 1,
      expectedStatus: 'active',
      remindEveryMs: 15 * 60_000,
      escalateAfterMs: [10 * 60_000],
    };
    let state: MonitorState | undefined;
    const alerts: string[] = [];
    const step = (observation: CycleObservation) => {
      const decided = decide(state, observation, settings, Date.parse(observation.at) + 60_000);
      state = decided.state;
      for (const a of decided.alerts) {
        alerts.push(`${a.event}@${Math.round((Date.parse(observation.at) - t0) / 60_000)}`);
      }
    };
    step(up(atMs(0)));
    step(down(atMs(1)));
    step(down(atMs(2)));
    // The third failing cycle comes from a process whose clock is 3 h ahead: it opens the incident.
    step(down(atMs(3 + 180)));
    for (let m = 4; m <= 60; m++) step(down(atMs(m)));
    expect(alerts[0]).toBe('api.unreachable@183');
    // Open about 57 true minutes, unacknowledged: escalated 10 minutes after the first true cycle, and reminded.
    expect(alerts.filter((a) => a.startsWith('incident.escalated'))).toEqual(['incident.escalated@14']);
    expect(alerts.filter((a) => a.startsWith('incident.reminder')).length).toBeGreaterThanOrEqual(3);
  });
});

describe('decide: the expected status edited while the status is away (the settings close the incident)', () => {
  const settings: DecideSettings = { ...BASE, escalateAfterMs: [10 * 60_000] };
  const { expectedStatus: _expected, ...unset } = settings;
  const away = `filter.status_changed/${at(1)}`;
  const opened = () => run(undefined, 0, 1, (i) => seen(i, i === 0 ? 'on' : 'mitigating'), settings);

  it.each([
    ['unset', unset, undefined],
    ['set to the status seen', { ...settings, expectedStatus: 'mitigating' }, 'mitigating'],
  ] as const)(
    'expected %s: one incident.resolved with the id (action resolve), then nothing',
    (_name, edited, expected) => {
      const before = opened();
      expect(before.records.map((a) => [a.event, a.incident])).toEqual([['filter.status_changed', away]]);

      const after = run(before.state, 2, 30, (i) => seen(i, 'mitigating'), edited);

      expect(after.alerts).toEqual(['incident.resolved@2#1']);
      const resolve = after.records[0]!;
      expect(resolve).toMatchObject({
        incident: away,
        severity: 'resolved',
        to: 'mitigating',
        openedAt: at(1),
      });
      expect(resolve.expected).toBe(expected);
      expect(after.state?.awayIncident).toBeUndefined();
      expect(after.state?.incidentTimers).toBeUndefined();
      const rendered = renderAlert(resolve, { networks: [], monitorName: 'edge' });
      expect(rendered.attributes['action']).toBe('resolve');
      expect(rendered.subject).toBe(
        '[edge] RESOLVED: filter status mitigating is no longer away (expected status changed)',
      );
      expect(rendered.subject.length).toBeLessThanOrEqual(SUBJECT_MAX_CHARS);
      expect(rendered.sms.length).toBeLessThanOrEqual(SMS_MAX_CHARS);
      expect(JSON.parse(rendered.sqs)).toMatchObject({ incident: away, action: 'resolve', level: 'info' });
    },
  );

  it('an unreadable cycle closes it too (the state drops it either way), and a stale replay sends nothing again', () => {
    const before = opened();
    const closing = decide(before.state, down(2), unset);
    expect(closing.alerts.map((a) => [a.event, a.incident])).toEqual([['incident.resolved', away]]);
    expect(decide(closing.state, down(2), unset)).toMatchObject({ stale: true, alerts: [] });
    expect(decide(closing.state, seen(3, 'mitigating'), unset).alerts).toEqual([]);
  });

  it('set again while still away: a new incident from that cycle, not the old id rebuilt; its change back resolves it', () => {
    const before = opened();
    const cleared = run(before.state, 2, 3, (i) => seen(i, 'mitigating'), unset);
    expect(cleared.alerts).toEqual(['incident.resolved@2#1']);

    const again = run(cleared.state, 4, 14, (i) => seen(i, 'mitigating'), settings);

    const fresh = `filter.status_changed/${at(4)}`;
    expect(again.state?.awayIncident).toBe(fresh);
    // Its escalation (action trigger) opens the page 10 minutes after the expectation was set again.
    expect(again.alerts).toEqual(['incident.escalated@14#2']);
    expect(again.records[0]?.incident).toBe(fresh);
    expect(again.records.some((a) => a.incident === away)).toBe(false);
    const back = run(again.state, 15, 15, (i) => seen(i, 'on'), settings);
    expect(back.records.map((a) => [a.event, a.severity, a.incident])).toEqual([
      ['filter.status_changed', 'resolved', fresh],
    ]);
  });

  it('an item from before incidents had ids (away, no awayIncident, expected set) reads as before', () => {
    const old = { ...opened().state!, awayIncident: undefined, incidentTimers: undefined };
    const next = decide(old, seen(2, 'mitigating'), settings);
    expect(next.alerts).toEqual([]);
    expect(next.state.awayIncident).toBe(away);
  });

  it('routes by its shape to the status family; a rule incident keeps its own', () => {
    const record = {
      seq: 1,
      event: 'incident.resolved',
      at: at(2),
      incident: away,
      to: 'mitigating',
    } as const;
    expect(isMonitorIncidentAlert(record)).toBe(true);
    expect(familyOf(record as unknown as AlertRecord).action(record as unknown as AlertRecord)).toBe(
      'resolve',
    );
    expect(isMonitorIncidentAlert({ ...record, rule: 'pps', story: {} })).toBe(false);
  });
});
