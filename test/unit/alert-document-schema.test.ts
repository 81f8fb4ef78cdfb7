/**
 * `docs/alert-document.schema.json`, the `sqs` document's contract for integrators (docs/channels.md):
 * every event kind, as its producer makes it and rendered by the publisher's own renderer, validates; so do
 * the same alerts with hostile values from the API; and documents that break the contract do not.
 */

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlertAction, AlertDocument, AlertLevel } from '../../lambda/core/alerts/alert-documents.ts';
import { ALERT_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import { renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import { type CycleObservation, type DecideSettings, decide } from '../../lambda/core/detect/decide.ts';
import {
  type HealthState,
  judgeHealth,
  type NetworkOutcome,
} from '../../lambda/core/detect/network-health.ts';
import { buildDigest } from '../../lambda/core/digest/digest.ts';
import { encodeDigestBody } from '../../lambda/core/digest/digest-body.ts';
import {
  acknowledgeHealthIncident,
  acknowledgeIncident,
  acknowledgeMonitorIncident,
  acknowledgeRuleIncident,
} from '../../lambda/core/incidents/incident-ack.ts';
import {
  type IncidentScopeState,
  judgeIncident,
  type ShardMembers,
} from '../../lambda/core/incidents/incidents.ts';
import { followRuleIncidents } from '../../lambda/core/incidents/rule-incidents.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import type { RuleState } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import { decideNotices, INITIAL_NOTICES } from '../../lambda/core/silences/maintenance-notices.ts';
import { dueAnnouncements, type HeldChanges } from '../../lambda/core/silences/silence.ts';
import type { AlertEvent, AlertRecord } from '../../lambda/core/types.ts';
import { SAMPLE_DIGEST } from '../fixtures/digest-sample.ts';

const SCHEMA_PATH = new URL('../../docs/alert-document.schema.json', import.meta.url);
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));

// Strict: a keyword ajv does not know, or one that cannot apply, is an error in the schema, not ignored. The
// per-event rules require fields that the top level defines (one list of fields), which strictRequired would
// want repeated in every branch.
const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
// ajv-formats is CommonJS: its function is `default` of the module, whichever way the module is loaded.
ajvFormats.default(ajv);
const validate = ajv.compile(schema);

/** The errors of `document` against the schema, as readable lines (empty when it is valid). */
function errorsOf(document: unknown): string[] {
  return validate(document)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Every field of {@link AlertDocument}: a field added there does not compile until it is listed here. */
const DOCUMENT_FIELDS: Record<keyof AlertDocument, true> = {
  period: true,
  digest: true,
  page: true,
  late: true,
  version: true,
  event: true,
  monitor: true,
  at: true,
  action: true,
  incident: true,
  level: true,
  summary: true,
  text: true,
  severity: true,
  from: true,
  to: true,
  expected: true,
  since: true,
  previousSince: true,
  cycles: true,
  detail: true,
  rule: true,
  network: true,
  value: true,
  threshold: true,
  baseline: true,
  ruleText: true,
  values: true,
  networks: true,
  remaining: true,
  path: true,
  seq: true,
  peaks: true,
  networkCount: true,
  networksTotal: true,
  spread: true,
  observedAt: true,
  openedAt: true,
  resolvedAt: true,
  stage: true,
  acknowledgedBy: true,
};
const LEVELS: Record<AlertLevel, true> = { critical: true, error: true, warning: true, info: true };
const ACTIONS: Record<AlertAction, true> = { trigger: true, resolve: true, acknowledge: true };

const minute = (i: number) => new Date(Date.UTC(2026, 10, 22, 10, i)).toISOString();

/** Observations of one cycle, as the poller makes them. */
const observe = {
  ok: (i: number, status: string): CycleObservation => ({
    at: minute(i),
    filter: { ok: true, status },
    outcomes: [{ ok: true, httpStatus: 200 }],
  }),
  down: (i: number): CycleObservation => ({
    at: minute(i),
    filter: { ok: false, errorKind: 'transport', error: 'connect ECONNREFUSED 127.0.0.1:443' },
    outcomes: [{ ok: false, errorKind: 'transport', error: 'connect ECONNREFUSED 127.0.0.1:443' }],
  }),
  rejected: (i: number): CycleObservation => ({
    at: minute(i),
    filter: { ok: false, errorKind: 'auth', error: 'HTTP 401', httpStatus: 401 },
    outcomes: [{ ok: false, errorKind: 'auth', error: 'HTTP 401', httpStatus: 401 }],
  }),
  unreadable: (i: number): CycleObservation => ({
    at: minute(i),
    filter: { ok: false, errorKind: 'contract', error: 'no status at data.state', httpStatus: 200 },
    outcomes: [{ ok: false, errorKind: 'contract', error: 'no status at data.state', httpStatus: 200 }],
  }),
};

/** The alerts decide makes from `observations`, numbered as the outbox numbers them. */
function decided(settings: DecideSettings, observations: readonly CycleObservation[]): AlertRecord[] {
  let state: Parameters<typeof decide>[0];
  const alerts: AlertRecord[] = [];
  for (const observation of observations) {
    const decision = decide(state, observation, settings);
    state = decision.state;
    alerts.push(...decision.alerts);
  }
  return alerts;
}

/** The alerts the rule evaluator makes from one network's readings of `rules`, cycle by cycle. */
function ruleAlerts(rules: string, readings: readonly Record<string, number | boolean>[]): AlertRecord[] {
  const parsed = parseRules(rules);
  expect(parsed.problems ?? []).toEqual([]);
  let state: Parameters<typeof evaluateRules>[0]['state'];
  const alerts: AlertRecord[] = [];
  for (const [i, reading] of readings.entries()) {
    const at = minute(i);
    const result = evaluateRules({
      rules: parsed.rules,
      networks: ['net-2'],
      state,
      at,
      observations: [
        {
          networkId: 'net-2',
          at,
          readings: Object.fromEntries(
            Object.entries(reading).map(([rule, value]) => [rule, { kind: 'value' as const, value }]),
          ),
        },
      ],
    });
    state = result.state;
    alerts.push(...result.alerts.map((alert, n) => ({ ...alert, seq: i * 10 + n })));
  }
  return alerts;
}

/** The alerts the network health judge makes, cycle by cycle: net-1 and net-2 fail, a rule reads nothing on net-1. */
function healthAlerts(): AlertRecord[] {
  const rules = [{ name: 'pps', path: 'traffic.in_pps', text: 'pps: traffic.in_pps > 50000' }];
  const up = (network: string, reads: boolean): NetworkOutcome => ({
    network,
    ok: true,
    readings: { pps: reads },
  });
  const cycles: NetworkOutcome[][] = [
    [
      { network: 'net-1', ok: false, errorKind: 'client', httpStatus: 404, error: 'HTTP 404' },
      up('net-2', true),
    ],
    [
      { network: 'net-1', ok: false, errorKind: 'client', httpStatus: 404, error: 'HTTP 404' },
      { network: 'net-2', ok: false, errorKind: 'transport', error: 'timed out after 1000 ms' },
    ],
    [up('net-1', false), { network: 'net-2', ok: false, errorKind: 'transport', error: 'timed out' }],
    [up('net-1', false), up('net-2', true)],
    [up('net-1', true), up('net-2', true)],
  ];
  let state: HealthState | undefined;
  const alerts: AlertRecord[] = [];
  cycles.forEach((networks, i) => {
    const judged = judgeHealth(state, {
      at: minute(i),
      alertAfter: 2,
      shard: 0,
      rules,
      networks,
      apiAnswered: true,
    });
    if (judged.stale) return;
    state = judged.state;
    alerts.push(...judged.alerts);
  });
  return alerts;
}

/**
 * The blind spots' incidents followed (CONTRACT §13-14): reminders and escalations of a network that keeps
 * failing and of a rule that reads nothing, the first acknowledged, then both resolved (judgeHealth,
 * acknowledgeHealthIncident).
 */
function healthIncidentAlerts(): AlertRecord[] {
  const rules = [{ name: 'pps', path: 'traffic.in_pps', text: 'pps: traffic.in_pps > 50000' }];
  const failing: NetworkOutcome = { network: 'net-3', ok: false, errorKind: 'server', httpStatus: 503 };
  const blind: NetworkOutcome = { network: 'net-4', ok: true, readings: { pps: false } };
  const well = [
    { network: 'net-3', ok: true, readings: { pps: true } },
    { network: 'net-4', ok: true, readings: { pps: true } },
  ];
  let state: HealthState | undefined;
  const alerts: AlertRecord[] = [];
  for (let i = 0; i <= 8; i++) {
    const judged = judgeHealth(state, {
      at: minute(i),
      alertAfter: 1,
      shard: 2,
      rules,
      networks: i < 8 ? [failing, blind] : well,
      apiAnswered: true,
      remindEveryMs: 120_000,
      escalateAfterMs: [180_000],
    });
    if (judged.stale || !judged.changed) continue;
    state = judged.state;
    alerts.push(...judged.alerts);
    if (i === 4 && state.downIncident !== undefined) {
      const acked = acknowledgeHealthIncident(state, state.downIncident, {
        by: 'arn:aws:iam::123456789012:user/ops',
        at: minute(i),
        note: 'provider ticket 7',
      });
      if (acked.outcome === 'acknowledged' && acked.alert !== undefined) {
        state = acked.state;
        alerts.push(acked.alert);
      }
    }
  }
  return alerts;
}

/**
 * A rule's incident on one network (`groupBy=none`) followed: triggered, reminded, escalated, acknowledged, then
 * resolved at the stage reached (evaluateRules, followRuleIncidents, acknowledgeRuleIncident); a baseline rule
 * and a boolean rule beside it, so that every kind's follow-up is rendered.
 */
function ruleCellIncidentAlerts(): AlertRecord[] {
  const { rules } = parseRules(
    'pps: traffic.in_pps > 50000; flag: attack.on == true; surge: traffic.in_pps > 3x baseline',
  );
  let state: RuleState | undefined;
  let nextSeq = 1;
  const alerts: AlertRecord[] = [];
  for (let i = 0; i <= 20; i++) {
    const at = minute(i);
    const pps = i < 11 ? 1000 : i < 19 ? 90_000 : 1000;
    const evaluated = evaluateRules({
      rules,
      networks: ['net-2'],
      state,
      at,
      observations: [
        {
          networkId: 'net-2',
          at,
          readings: {
            pps: { kind: 'value', value: pps },
            flag: { kind: 'value', value: pps > 50_000 },
            surge: { kind: 'value', value: pps },
          },
        },
      ],
    });
    const followed = followRuleIncidents({
      rules,
      state: evaluated.state,
      at,
      observations: [{ networkId: 'net-2', at, readings: { pps: { kind: 'value', value: pps } } }],
      settings: { remindEveryMs: 120_000, escalateAfterMs: [180_000] },
      room: 100,
    });
    state = followed.state;
    for (const alert of [...evaluated.alerts, ...followed.alerts])
      alerts.push({ ...alert, seq: nextSeq++ } as AlertRecord);
    if (i === 15) {
      const acked = acknowledgeRuleIncident({ rules: state, nextSeq }, `pps/net-2/${minute(11)}`, {
        by: 'arn:aws:iam::123456789012:user/ops',
        at,
        note: 'scrubbing',
      });
      if (acked.outcome === 'acknowledged' && acked.alert !== undefined) {
        state = acked.state.rules;
        nextSeq = acked.state.nextSeq;
        alerts.push(acked.alert);
      }
    }
  }
  return alerts;
}

/** The alerts of one rule's incident across networks: opened, updated, a reminder, resolved (judgeIncident). */
function incidentAlerts(): AlertRecord[] {
  const rule = parseRules('flood: traffic.in.pps > 500k').rules[0]!;
  const subject = {
    rule: rule.name,
    ruleText: rule.text,
    condition: { path: rule.path, op: rule.op, threshold: rule.threshold },
  };
  let state: IncidentScopeState | undefined;
  let members: ShardMembers | undefined;
  const alerts: AlertRecord[] = [];
  const steps: Array<[number, Array<[string, boolean, number]>]> = [
    [
      0,
      [
        ['edge-1', true, 1_200_000],
        ['edge-2', true, 600_000],
      ],
    ],
    [1, [['edge-3', true, 700_000]]],
    [6, [['edge-1', true, 900_000]]],
    [
      7,
      [
        ['edge-1', false, 1],
        ['edge-2', false, 1],
        ['edge-3', false, 1],
      ],
    ],
  ];
  for (const [i, views] of steps) {
    const judged = judgeIncident(state, {
      subject,
      shard: 0,
      at: minute(i),
      views: views.map(([network, open, value]) => ({ network, open, value })),
      groupIntervalMs: 300_000,
      remindEveryMs: 360_000,
      escalateAfterMs: [300_000],
      ...(members === undefined ? {} : { members }),
    });
    if (!judged.stale) members = judged.members;
    if (judged.stale || !judged.changed) continue;
    alerts.push(...judged.alerts.map((a, n) => ({ ...a, seq: (state?.nextSeq ?? 1) + n })));
    state = { ...judged.state, nextSeq: judged.state.nextSeq + judged.alerts.length };
    // Acknowledged once escalated (issue 25): `shieldwatch ack` or the link.
    const open = state.open;
    if (open !== undefined && open.stage > 1 && open.acknowledged === undefined) {
      const acked = acknowledgeIncident(state, open.id, {
        by: 'arn:aws:iam::123456789012:user/ops',
        at: minute(i),
        note: 'on it',
      });
      if (acked.outcome === 'acknowledged') {
        alerts.push(acked.alert);
        state = acked.state;
      }
    }
  }
  return alerts;
}

/**
 * The monitor's own incidents escalated, reminded and acknowledged (docs/acknowledge.md): the status away and the
 * API unreachable as decide escalates them, and acknowledged as `shieldwatch ack` and the link do, without the
 * expected status (they do not know it).
 */
function monitorIncidentAlerts(): AlertRecord[] {
  const settings: DecideSettings = {
    alertAfter: 2,
    confirmations: 1,
    expectedStatus: 'active',
    remindEveryMs: 3 * 60_000,
    escalateAfterMs: [2 * 60_000],
  };
  const { ok, down } = observe;
  const alerts: AlertRecord[] = [];
  for (const observations of [
    [ok(0, 'active'), ok(1, 'mitigating'), ok(2, 'mitigating'), ok(3, 'mitigating'), ok(4, 'mitigating')],
    [ok(0, 'active'), down(1), down(2), down(3), down(4), down(5)],
  ]) {
    let state: Parameters<typeof decide>[0];
    for (const observation of observations) {
      const decision = decide(state, observation, settings);
      state = decision.state;
      alerts.push(...decision.alerts);
    }
    const id = alerts.at(-1)!.incident!;
    const ack = acknowledgeMonitorIncident(state!, id, {
      by: 'arn:aws:iam::123456789012:user/ops',
      at: minute(6),
      note: 'on it',
    });
    if (ack.outcome !== 'acknowledged') throw new Error(`not acknowledged: ${ack.outcome}`);
    alerts.push(ack.alert!);
  }
  expect(alerts.map((a) => `${a.event} ${a.incident?.split('/')[0]}`)).toEqual([
    'filter.status_changed filter.status_changed',
    'incident.escalated filter.status_changed',
    'filter.status_reminder filter.status_changed',
    'incident.acknowledged filter.status_changed',
    'api.unreachable api.unreachable',
    'incident.escalated api.unreachable',
    'incident.reminder api.unreachable',
    'incident.acknowledged api.unreachable',
  ]);
  // The status away closed by the settings (docs/alerts.md): the expected status unset, or set to the status seen.
  for (const closing of [{}, { expectedStatus: 'mitigating' }]) {
    const { expectedStatus: _expected, ...unset } = settings;
    let state = decide(undefined, ok(0, 'active'), settings).state;
    state = decide(state, ok(1, 'mitigating'), settings).state;
    const closed = decide(state, ok(2, 'mitigating'), { ...unset, ...closing }).alerts;
    expect(closed.map((a) => `${a.event} ${a.incident}`)).toEqual([
      `incident.resolved filter.status_changed/${minute(1)}`,
    ]);
    alerts.push(...closed);
  }
  return alerts;
}

/**
 * Real alerts of every kind, each from the code that makes it in production: decide (status changes with and
 * without an expected status, reminders, the monitor's incidents and their ends), the rule evaluator (number,
 * boolean and baseline rules), the end of a silence (a held status change, rule, incident, and a change without
 * an incident), and the test alert as `shieldwatch test-alert` makes it.
 */
function producedAlerts(): AlertRecord[] {
  const expected: DecideSettings = {
    alertAfter: 2,
    confirmations: 1,
    expectedStatus: 'active',
    remindEveryMs: 60_000,
  };
  const { ok, down, rejected, unreadable } = observe;
  const rules = ruleAlerts('pps: traffic.in_pps > 50000 for 2; flag: attack.on == true', [
    { pps: 100, flag: false },
    { pps: 90000, flag: true },
    { pps: 95000, flag: false },
    { pps: 100, flag: false },
    { pps: 100, flag: false },
  ]);
  const baseline = ruleAlerts('surge: traffic.in_pps > 3x baseline', [
    ...Array.from({ length: 30 }, () => ({ surge: 100 })),
    { surge: 1000 },
    { surge: 100 },
  ]);
  const held: HeldChanges = {
    status: {
      silence: 's-k3j9x2ab',
      event: 'filter.status_changed',
      at: minute(1),
      since: minute(1),
      incident: `filter.status_changed/${minute(1)}`,
      from: 'active',
      to: 'mitigating',
      expected: 'active',
      severity: 'high',
    },
    rule: {
      silence: 's-k3j9x2ab',
      event: 'network.rule_triggered',
      at: minute(2),
      since: minute(2),
      incident: `pps/net-2/${minute(2)}`,
      rule: 'pps',
      network: 'net-2',
    },
    api: {
      silence: 's-k3j9x2ab',
      event: 'api.unreachable',
      at: minute(3),
      since: minute(3),
      incident: `api.unreachable/${minute(3)}`,
    },
    plain: {
      silence: 's-k3j9x2ab',
      event: 'filter.status_changed',
      at: minute(4),
      since: minute(4),
      from: 'active',
      to: 'blocked',
    },
  };
  const announced = dueAnnouncements(held, [], Date.parse(minute(30))).alerts;
  const records: Array<Omit<AlertRecord, 'seq'> & { seq?: number }> = [
    // Away, further away, a reminder, back.
    ...decided(expected, [
      ok(0, 'active'),
      ok(1, 'mitigating'),
      ok(2, 'blocked'),
      ok(3, 'blocked'),
      ok(4, 'active'),
    ]),
    // No expected status: a change opens nothing.
    ...decided({ alertAfter: 2, confirmations: 2 }, [ok(0, 'on'), ok(1, 'off'), ok(2, 'off')]),
    ...decided(expected, [ok(0, 'active'), down(1), down(2), down(3), ok(4, 'active')]),
    ...decided(expected, [ok(0, 'active'), rejected(1), ok(2, 'active')]),
    ...decided(expected, [ok(0, 'active'), unreadable(1), unreadable(2), ok(3, 'active')]),
    ...rules,
    ...baseline,
    ...announced,
    ...healthAlerts(),
    ...healthIncidentAlerts(),
    ...incidentAlerts(),
    ...monitorIncidentAlerts(),
    ...maintenanceNotices(),
    { seq: 0, event: 'monitor.test', at: minute(5), detail: 'sent by shieldwatch test-alert' },
    ...digests(),
  ];
  return records.map((record, i) => ({ ...record, seq: record.seq ?? 100 + i }) as AlertRecord);
}

/** A window's notices as the maintenance judge decides them: started inside an occurrence, ended after it. */
function maintenanceNotices(): AlertRecord[] {
  const occurrence = {
    id: 's-k3j9x2ab',
    startsAt: minute(10),
    endsAt: minute(40),
    pattern: '*',
    reason: 'weekly filter update',
    createdAt: minute(0),
    window: { tz: 'Europe/Berlin', notify: true },
  };
  const started = decideNotices(INITIAL_NOTICES, [occurrence], minute(11));
  if (started.stale) return [];
  const ended = decideNotices(started.state, [], minute(41));
  return [...started.alerts, ...(ended.stale ? [] : ended.alerts)];
}

/** Digests as the digest function makes them: of an empty store, and of a day with incidents, its page private and late. */
function digests(): AlertRecord[] {
  const period = {
    since: minute(0),
    until: minute(60),
    every: 'daily' as const,
    label: minute(60).slice(0, 10),
  };
  const empty = buildDigest({
    incidents: [],
    snapshots: [],
    silences: [],
    since: period.since,
    until: period.until,
  });
  return [
    {
      seq: 1,
      event: 'monitor.digest',
      at: minute(61),
      digest: encodeDigestBody({ digest: empty, period, tz: 'UTC' }),
    },
    {
      seq: 2,
      event: 'monitor.digest',
      at: minute(61),
      digest: encodeDigestBody({
        digest: SAMPLE_DIGEST,
        period,
        tz: 'Europe/Berlin',
        page: { url: 'https://d111111abcdef8.cloudfront.net/', mode: 'private' },
        late: true,
      }),
    },
  ];
}

const PRODUCED = producedAlerts();

/** The `sqs` document of `alert`, through the renderer the publisher uses. */
function sqsDocument(alert: AlertRecord, monitorName: unknown = 'edge-eu'): Record<string, unknown> {
  return JSON.parse(renderAlert(alert, { networks: [], monitorName: monitorName as string }).sqs);
}

describe('the schema', () => {
  it('is a valid draft 2020-12 schema that compiles in strict mode', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(ajv.validateSchema(schema)).toBe(true);
  });

  it('names every event kind of the code, each with its own rules', () => {
    // Assess: the list integrators read, and a branch per kind.
    expect([...schema.$defs.knownEvent.enum].sort()).toEqual([...ALERT_EVENTS].sort());
    const branches = schema.allOf
      .map(
        (branch: { if?: { properties?: { event?: { const?: string } } } }) =>
          branch.if?.properties?.event?.const,
      )
      .filter((event: unknown) => event !== undefined);
    expect([...branches].sort()).toEqual([...ALERT_EVENTS].sort());
  });

  it('has exactly the fields of the document, the levels and the actions', () => {
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(DOCUMENT_FIELDS).sort());
    expect([...schema.$defs.level.enum].sort()).toEqual(Object.keys(LEVELS).sort());
    expect([...schema.$defs.action.enum].sort()).toEqual(Object.keys(ACTIONS).sort());
  });
});

describe('every event kind, as its producer makes it, validates', () => {
  it('the blind spots reminded, escalated and acknowledged: incident.* documents of their shape, valid', () => {
    // Act
    const alerts = healthIncidentAlerts().filter((alert) => alert.event.startsWith('incident.'));
    const documents = alerts.map((alert) => sqsDocument(alert));

    // Assess
    expect(alerts.map((a) => `${a.event} ${String(a.incident).split('/')[0]}`)).toEqual([
      'incident.reminder network.unreachable',
      'incident.reminder network.rule_unreadable',
      'incident.escalated network.unreachable',
      'incident.escalated network.rule_unreadable',
      'incident.reminder network.unreachable',
      'incident.reminder network.rule_unreadable',
      'incident.acknowledged network.unreachable',
      // Acknowledged: the network's incident reminds no more; the rule's does.
      'incident.reminder network.rule_unreadable',
    ]);
    for (const document of documents) {
      expect(errorsOf(document), JSON.stringify(document)).toEqual([]);
      expect(document['networks']).toBeDefined();
      expect(document['networkCount']).toBeUndefined();
    }
    expect(documents[6]).toMatchObject({
      action: 'acknowledge',
      acknowledgedBy: 'arn:aws:iam::123456789012:user/ops',
      stage: 2,
    });
    // Not vacuous: a blind spot's escalation without its stage, or with a rule incident's count, fails.
    const { stage: _stage, ...withoutStage } = documents[2]!;
    expect(errorsOf(withoutStage)).not.toEqual([]);
    expect(errorsOf({ ...documents[2], networkCount: 1 })).not.toEqual([]);
  });

  it("a rule's incident on one network reminded, escalated, acknowledged and resolved: documents of its shape, valid", () => {
    // Act
    const alerts = ruleCellIncidentAlerts().filter((a) => a.rule === 'pps');
    const documents = alerts.map((alert) => sqsDocument(alert));

    // Assess
    expect(alerts.map((a) => `${a.event}@${a.stage ?? 1}`)).toEqual([
      'network.rule_triggered@1',
      'incident.reminder@1',
      'incident.escalated@2',
      'incident.reminder@2',
      'incident.acknowledged@2',
      // Acknowledged: no reminder at minute 17; the resolve is sent at the stage reached.
      'network.rule_resolved@2',
    ]);
    for (const document of documents) {
      expect(errorsOf(document), JSON.stringify(document)).toEqual([]);
      expect(document['incident']).toBe(`pps/net-2/${minute(11)}`);
    }
    expect(documents[2]).toMatchObject({ action: 'trigger', stage: 2, network: 'net-2', rule: 'pps' });
    expect(documents[4]).toMatchObject({
      action: 'acknowledge',
      acknowledgedBy: 'arn:aws:iam::123456789012:user/ops',
      detail: 'scrubbing',
    });
    expect(documents[5]).toMatchObject({ action: 'resolve', stage: 2 });
    // The boolean and the baseline rules' follow-ups validate too.
    for (const alert of ruleCellIncidentAlerts().filter((a) => a.rule !== 'pps'))
      expect(errorsOf(sqsDocument(alert)), JSON.stringify(alert)).toEqual([]);
    // Not vacuous: an escalation without its stage, or a reminder without its network, fails.
    const { stage: _stage, ...withoutStage } = documents[2]!;
    expect(errorsOf(withoutStage)).not.toEqual([]);
    const { network: _network, ...withoutNetwork } = documents[1]!;
    expect(errorsOf(withoutNetwork)).not.toEqual([]);
  });

  it('the producers make every event kind', () => {
    expect([...new Set(PRODUCED.map((alert) => alert.event))].sort()).toEqual([...ALERT_EVENTS].sort());
  });

  it.each(ALERT_EVENTS)('%s', (event) => {
    // Prepare
    const alerts = PRODUCED.filter((alert) => alert.event === event);
    expect(alerts.length).toBeGreaterThan(0);

    for (const alert of alerts) {
      // Act
      const document = sqsDocument(alert);

      // Assess
      expect(document.event).toBe(event);
      expect({ alert, errors: errorsOf(document) }).toEqual({ alert, errors: [] });
    }
  });

  it('between them, every action and every level', () => {
    // Act
    const documents = PRODUCED.map((alert) => sqsDocument(alert));

    // Assess
    expect(new Set(documents.map((d) => d.level))).toEqual(new Set(Object.keys(LEVELS)));
    expect(new Set(documents.map((d) => d.action))).toEqual(new Set([...Object.keys(ACTIONS), undefined]));
  });

  it('a record from a newer release (an event this one does not know) validates too', () => {
    const document = sqsDocument({
      seq: 3,
      event: 'incident.escalated_to_mars',
      at: minute(1),
    } as unknown as AlertRecord);
    expect(errorsOf(document)).toEqual([]);
  });
});

/** Text as the API or an operator could write it: any code units, markup, look-alikes, hidden characters. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 1500 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000\u001f\u007f',
    '\ud800 lone',
    'ON\u200b',
    '\u202eevil',
    '<!channel> *URGENT* [x](https://evil.example)',
    '"},"action":"resolve","x":{"',
    '__proto__',
    'x'.repeat(5000),
    '😀'.repeat(700),
  ),
);
const hostileNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(0, -0, Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER),
);

/** The fields of a record whose values come from the API, the configuration or an operator. */
const TEXT_FIELDS = [
  'from',
  'to',
  'expected',
  'detail',
  'rule',
  'network',
  'ruleText',
  'incident',
  'silence',
  'path',
] as const;

describe('with hostile values, every event kind still validates', () => {
  it.each(ALERT_EVENTS)('%s', (event) => {
    const templates = PRODUCED.filter((alert) => alert.event === event);
    fc.assert(
      fc.property(
        fc.constantFrom(...templates),
        fc.record({
          texts: fc.record(Object.fromEntries(TEXT_FIELDS.map((field) => [field, hostileText])), {
            requiredKeys: [],
          }),
          monitorName: fc.oneof(hostileText, fc.constant(undefined)),
          number: hostileNumber,
          values: fc.array(hostileNumber, { maxLength: 150 }),
          cycles: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
          seq: fc.nat(),
        }),
        (template, hostile) => {
          // Prepare: the template's own fields only, with the hostile values in them.
          const alert: Record<string, unknown> = { ...template, seq: hostile.seq };
          for (const [field, value] of Object.entries(hostile.texts)) {
            if (field in template && value !== '') alert[field] = value;
          }
          const numeric = typeof template.value === 'number';
          if (numeric) {
            alert['value'] = hostile.number;
            alert['values'] = hostile.values;
          }
          if ('cycles' in template) alert['cycles'] = hostile.cycles;

          // Act
          const document = sqsDocument(alert as unknown as AlertRecord, hostile.monitorName);

          // Assess
          expect(errorsOf(document)).toEqual([]);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('the schema is not vacuous: a document that breaks the contract fails', () => {
  const valid = (event: AlertEvent, pick: (doc: Record<string, unknown>) => boolean = () => true) => {
    const document = PRODUCED.map((alert) => sqsDocument(alert)).find(
      (doc) => doc.event === event && pick(doc),
    );
    expect(document).toBeDefined();
    expect(errorsOf(document)).toEqual([]);
    return document!;
  };
  const without = (doc: Record<string, unknown>, field: string) =>
    Object.fromEntries(Object.entries(doc).filter(([key]) => key !== field));

  it.each<[string, () => Record<string, unknown>]>([
    ['a required field missing (summary)', () => without(valid('monitor.test'), 'summary')],
    ['a required field missing (seq)', () => without(valid('api.unreachable'), 'seq')],
    ['an unknown field', () => ({ ...valid('monitor.test'), routing_key: 'R0123' })],
    ['another version', () => ({ ...valid('monitor.test'), version: 2 })],
    ['a level that does not exist', () => ({ ...valid('monitor.test'), level: 'fatal' })],
    ['an action that does not exist', () => ({ ...valid('api.unreachable'), action: 'acknowledge' })],
    ['an action without an incident', () => without(valid('api.unreachable'), 'incident')],
    [
      'an incident id longer than PagerDuty allows',
      () => ({ ...valid('api.unreachable'), incident: 'i'.repeat(256) }),
    ],
    ['a summary that is not ASCII', () => ({ ...valid('monitor.test'), summary: '[edge-eu] caf\u00e9' })],
    ['an SMS text over 160 characters', () => ({ ...valid('monitor.test'), text: 'x'.repeat(161) })],
    ['a time that is not one', () => ({ ...valid('monitor.test'), at: 'yesterday' })],
    ['a status over 1024 characters', () => ({ ...valid('filter.status_changed'), to: 'x'.repeat(1025) })],
    ['cycles that are not a whole number', () => ({ ...valid('api.unreachable'), cycles: 1.5 })],
    ['a value of the wrong type', () => ({ ...valid('network.rule_triggered'), value: '90000' })],
    ['a resolve that is urgent', () => ({ ...valid('api.recovered'), level: 'critical' })],
    ['an incident opened without a trigger', () => without(valid('api.unreachable'), 'action')],
    ['a rule resolve that triggers', () => ({ ...valid('network.rule_resolved'), action: 'trigger' })],
    ['a rule alert without its network', () => without(valid('network.rule_triggered'), 'network')],
    [
      'a boolean rule with a numeric threshold',
      () => ({ ...valid('network.rule_triggered', (d) => typeof d.value === 'boolean'), threshold: 1 }),
    ],
    [
      'a change away from the expected status that is only a warning',
      () => ({ ...valid('filter.status_changed', (d) => d.severity === 'high'), level: 'warning' }),
    ],
    [
      'a change without an expected status that opens an incident',
      () => ({
        ...valid('filter.status_changed', (d) => d.level === 'warning'),
        action: 'trigger',
        incident: 'x/1',
      }),
    ],
    ['a reminder that opens an incident', () => ({ ...valid('filter.status_reminder'), action: 'trigger' })],
    [
      'a test alert with an incident',
      () => ({ ...valid('monitor.test'), incident: 'x/1', action: 'trigger' }),
    ],
    ['a test alert with a rule', () => ({ ...valid('monitor.test'), rule: 'pps' })],
    [
      'an announcement at a silence end with an incident but no action',
      () =>
        without(
          valid('silence.still_holding', (d) => d.incident !== undefined),
          'action',
        ),
    ],
    [
      'an unknown event that opens an incident',
      () => ({ ...valid('monitor.test'), event: 'incident.opened', action: 'trigger', incident: 'x/1' }),
    ],
  ])('%s', (_name, broken) => {
    expect(errorsOf(broken())).not.toEqual([]);
  });
});
