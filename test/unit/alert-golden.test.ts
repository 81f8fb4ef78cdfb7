/**
 * Golden texts of every alert event (issue 20.3): one or more records of each event kind rendered through
 * `renderAlert` (subject, the five protocol texts, attributes), compared with the committed fixture
 * `test/fixtures/alert-golden.json`. The fixture was written before the alert families became records, so it
 * holds what the texts were; any change to a text shows here as a diff. The same records as today's encoder
 * stores them (`storedAlert`, as outbox and event items keep them) decode and render to the same texts.
 *
 * To accept a deliberate change of a text: `GOLDEN_UPDATE=1 npx vitest run test/unit/alert-golden.test.ts`,
 * then read the fixture's diff.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromStoredAlert, storedAlert } from '../../lambda/adapters/dynamo-items.ts';
import { ALERT_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import { type RenderContext, renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import type { IncidentStory } from '../../lambda/core/incidents/incidents.ts';
import { conditionOf } from '../../lambda/core/rules/rule-kinds/index.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { AlertRecord, RenderedAlert } from '../../lambda/core/types.ts';
import { sampleDigestRecord } from '../fixtures/digest-sample.ts';

const FIXTURE = new URL('../fixtures/alert-golden.json', import.meta.url);

const AT = '2026-11-22T10:04:12.345Z';
const EARLIER = '2026-11-21T08:00:00.000Z';
const OPENED = '2026-11-22T09:40:00.000Z';

const CTX: RenderContext = {
  monitorName: 'edge monitor',
  apiUrl: 'https://api.protection.example/v1',
  networks: [
    {
      networkId: 'edge-1',
      at: '2026-11-22T10:04:12.400Z',
      figures: [
        ['traffic.in.pps', 120000],
        ['traffic.in.bps', 950000000],
      ],
    },
    { networkId: 'edge-2', at: '2026-11-22T10:04:12.400Z', figures: [], error: 'timed out after 5000 ms' },
  ],
};

function ruleFields(text: string) {
  const rule = parseRules(text).rules[0]!;
  return { rule: rule.name, ruleText: rule.text, condition: conditionOf(rule) };
}

const FLOOD = ruleFields('flood: traffic.in.pps > 500k');

function story(extra: Partial<IncidentStory> = {}): IncidentStory {
  return {
    kind: 'rule',
    openedAt: OPENED,
    members: [
      {
        network: 'edge-1',
        value: 1_200_000,
        peak: 1_500_000,
        peakAt: '2026-11-22T09:50:00.000Z',
        joinedAt: OPENED,
      },
      { network: 'edge-2', value: 600_000, peak: 700_000, peakAt: OPENED, joinedAt: OPENED },
    ],
    count: 2,
    total: 2,
    active: 2,
    ...extra,
  };
}

const INCIDENT = `flood@${OPENED}`;

/** The records, by case name; every event of `ALERT_EVENTS` has at least one (checked below). */
const RECORDS: Readonly<Record<string, AlertRecord>> = {
  'status changed, expected status, confirmed': {
    seq: 3,
    event: 'filter.status_changed',
    at: AT,
    from: 'active',
    to: 'mitigating',
    previousSince: EARLIER,
    expected: 'active',
    severity: 'high',
    cycles: 2,
    incident: `filter.status_changed/${AT}`,
  },
  'status changed, look-alike, no expected status, no id': {
    seq: 4,
    event: 'filter.status_changed',
    at: AT,
    from: 'ON',
    to: '\uFF2F\uFF2E',
    previousSince: EARLIER,
    cycles: 1,
  },
  'status changed back, resolved': {
    seq: 5,
    event: 'filter.status_changed',
    at: AT,
    from: 'mitigating',
    to: 'active',
    previousSince: EARLIER,
    expected: 'active',
    severity: 'resolved',
    cycles: 3,
    incident: `filter.status_changed/${EARLIER}`,
  },
  'status reminder': {
    seq: 6,
    event: 'filter.status_reminder',
    at: AT,
    to: 'mitigating',
    expected: 'active',
    statusSince: EARLIER,
    severity: 'high',
  },
  'api key rejected': {
    seq: 7,
    event: 'api.auth_failed',
    at: AT,
    cycles: 1,
    detail: 'HTTP 401 Unauthorized',
    incident: `api.auth_failed/${AT}`,
  },
  'api key accepted again, a record without an id': {
    seq: 8,
    event: 'api.auth_restored',
    at: AT,
    cycles: 2,
    previousSince: EARLIER,
    detail: 'HTTP 403 Forbidden',
  },
  'api unreachable': {
    seq: 9,
    event: 'api.unreachable',
    at: AT,
    cycles: 3,
    detail: 'timed out after 5000 ms',
    incident: `api.unreachable/${AT}`,
  },
  'api reachable again': {
    seq: 10,
    event: 'api.recovered',
    at: AT,
    cycles: 4,
    previousSince: EARLIER,
    detail: 'HTTP 503',
    incident: `api.unreachable/${EARLIER}`,
  },
  'status unreadable': {
    seq: 11,
    event: 'filter.status_unreadable',
    at: AT,
    cycles: 3,
    detail: 'no status at the status path filter.state',
    incident: `filter.status_unreadable/${AT}`,
  },
  'status readable again': {
    seq: 12,
    event: 'filter.status_readable',
    at: AT,
    cycles: 1,
    previousSince: EARLIER,
    incident: `filter.status_unreadable/${EARLIER}`,
  },
  'rule triggered': {
    seq: 13,
    event: 'network.rule_triggered',
    at: AT,
    ...ruleFields('pps: traffic.in.pps > 50000 for 3'),
    network: 'edge-1',
    value: 90000,
    threshold: 50000,
    values: [60000, 75000, 90000],
    incident: `pps/edge-1/${AT}`,
    triggeredAt: AT,
  },
  'rule resolved': {
    seq: 14,
    event: 'network.rule_resolved',
    at: AT,
    ...ruleFields('pps: traffic.in.pps > 50000 for 3'),
    network: 'edge-1',
    value: 40000,
    threshold: 50000,
    values: [45000, 42000, 40000],
    incident: `pps/edge-1/${EARLIER}`,
    triggeredAt: EARLIER,
    peak: 125000,
    peakAt: '2026-11-21T08:10:00.000Z',
  },
  'rule triggered, baseline': {
    seq: 15,
    event: 'network.rule_triggered',
    at: AT,
    ...ruleFields('surge: traffic.in.pps > 3x baseline'),
    network: 'edge-2',
    value: 9000,
    threshold: 6000,
    baseline: 2000,
    values: [9000],
    incident: `surge/edge-2/${AT}`,
    triggeredAt: AT,
  },
  'rule triggered, stored before records carried the condition': {
    seq: 16,
    event: 'network.rule_triggered',
    at: AT,
    rule: 'attack',
    ruleText: 'attack: attack.active == true for 2',
    network: 'edge-1',
    value: true,
    threshold: true,
    values: [true, true],
    incident: `attack/edge-1/${AT}`,
    triggeredAt: AT,
  },
  'networks unreachable': {
    seq: 17,
    event: 'network.unreachable',
    at: AT,
    members: [
      {
        network: 'edge-1',
        since: EARLIER,
        cycles: 3,
        errorKind: 'client',
        httpStatus: 404,
        error: 'HTTP 404 Not Found',
      },
      { network: 'edge-2', since: EARLIER, cycles: 3, errorKind: 'transport', error: 'connection refused' },
    ],
    remaining: ['edge-1', 'edge-2'],
    incident: `network.unreachable/0/${EARLIER}`,
  },
  'network reachable again, one still failing': {
    seq: 18,
    event: 'network.recovered',
    at: AT,
    members: [{ network: 'edge-1', since: EARLIER, cycles: 3, errorKind: 'client', httpStatus: 404 }],
    remaining: ['edge-2'],
    incident: `network.unreachable/0/${EARLIER}`,
  },
  'network reachable again, none left': {
    seq: 19,
    event: 'network.recovered',
    at: AT,
    members: [{ network: 'edge-2', since: EARLIER, cycles: 4, errorKind: 'transport' }],
    remaining: [],
    incident: `network.unreachable/0/${EARLIER}`,
  },
  'rule reads nothing': {
    seq: 20,
    event: 'network.rule_unreadable',
    at: AT,
    rule: 'pps',
    ruleText: 'pps: traffic.in_pps > 50000',
    path: 'traffic.in_pps',
    members: [
      { network: 'edge-1', since: EARLIER, cycles: 3 },
      { network: 'edge-2', since: EARLIER, cycles: 3 },
    ],
    remaining: ['edge-1', 'edge-2'],
    incident: `network.rule_unreadable/pps/0/${EARLIER}`,
  },
  'rule reads again': {
    seq: 21,
    event: 'network.rule_readable',
    at: AT,
    rule: 'pps',
    ruleText: 'pps: traffic.in_pps > 50000',
    path: 'traffic.in_pps',
    members: [{ network: 'edge-1', since: EARLIER, cycles: 3 }],
    remaining: [],
    incident: `network.rule_unreadable/pps/0/${EARLIER}`,
  },
  // A blind spot's incident reminded, escalated, acknowledged (CONTRACT §13-14): incident.* events, the
  // blind spots' texts.
  'blind spot reminder': {
    seq: 40,
    event: 'incident.reminder',
    at: AT,
    members: [
      { network: 'edge-1', since: EARLIER, cycles: 3, errorKind: 'client', httpStatus: 404 },
      { network: 'edge-2', since: EARLIER, cycles: 3, errorKind: 'transport' },
    ],
    stage: 2,
    detail: 'edge-1 (client, HTTP 404), edge-2 (transport)',
    incident: `network.unreachable/0/${EARLIER}`,
  },
  'blind spot escalated (rule reads nothing)': {
    seq: 41,
    event: 'incident.escalated',
    at: AT,
    rule: 'pps',
    ruleText: 'pps: traffic.in_pps > 50000',
    path: 'traffic.in_pps',
    members: [{ network: 'edge-1', since: EARLIER, cycles: 3 }],
    stage: 3,
    detail: 'edge-1',
    incident: `network.rule_unreadable/pps/0/${EARLIER}`,
  },
  'blind spot acknowledged': {
    seq: 42,
    event: 'incident.acknowledged',
    at: AT,
    members: [{ network: 'edge-1', since: EARLIER, cycles: 3, errorKind: 'client', httpStatus: 404 }],
    stage: 1,
    acknowledgedBy: 'arn:aws:iam::123456789012:user/ops',
    detail: 'provider ticket 7',
    incident: `network.unreachable/0/${EARLIER}`,
  },
  // The monitor's own incidents escalated, reminded, acknowledged (CONTRACT §14): incident.* events with the id
  // of the status away or of the API's incident, their families' texts.
  'status away escalated': {
    seq: 43,
    event: 'incident.escalated',
    at: AT,
    to: 'mitigating',
    expected: 'active',
    severity: 'high',
    openedAt: OPENED,
    stage: 2,
    incident: `filter.status_changed/${OPENED}`,
  },
  'status away acknowledged': {
    seq: 44,
    event: 'incident.acknowledged',
    at: AT,
    to: 'mitigating',
    openedAt: OPENED,
    stage: 2,
    acknowledgedBy: 'arn:aws:iam::123456789012:user/ops',
    detail: 'maintenance window',
    incident: `filter.status_changed/${OPENED}`,
  },
  // The status away closed by the settings (SHIELDWATCH_EXPECTED_STATUS set to the status seen): its end.
  'status away closed by the expected status': {
    seq: 48,
    event: 'incident.resolved',
    at: AT,
    to: 'mitigating',
    expected: 'mitigating',
    severity: 'resolved',
    openedAt: OPENED,
    stage: 2,
    incident: `filter.status_changed/${OPENED}`,
  },
  'API unreachable reminder': {
    seq: 45,
    event: 'incident.reminder',
    at: AT,
    openedAt: OPENED,
    stage: 1,
    detail: 'connect ECONNREFUSED 203.0.113.7:443',
    incident: `api.unreachable/${EARLIER}`,
  },
  'API key rejected escalated': {
    seq: 46,
    event: 'incident.escalated',
    at: AT,
    openedAt: OPENED,
    stage: 3,
    detail: 'HTTP 401: key rejected',
    incident: `api.auth_failed/${EARLIER}`,
  },
  'status unreadable acknowledged': {
    seq: 47,
    event: 'incident.acknowledged',
    at: AT,
    openedAt: OPENED,
    stage: 1,
    acknowledgedBy: 'link',
    incident: `filter.status_unreadable/${EARLIER}`,
  },
  'incident opened': {
    seq: 22,
    event: 'incident.opened',
    at: OPENED,
    ...FLOOD,
    severity: 'high',
    incident: INCIDENT,
    openedAt: OPENED,
    story: story(),
  },
  'incident updated': {
    seq: 23,
    event: 'incident.updated',
    at: AT,
    ...FLOOD,
    severity: 'high',
    incident: INCIDENT,
    openedAt: OPENED,
    story: story({
      members: [{ network: 'edge-3', value: 800_000, peak: 800_000, peakAt: AT, joinedAt: AT }],
      count: 1,
      total: 3,
      active: 3,
    }),
  },
  'incident reminder': {
    seq: 24,
    event: 'incident.reminder',
    at: AT,
    ...FLOOD,
    severity: 'high',
    incident: INCIDENT,
    openedAt: OPENED,
    story: story(),
    stage: 1,
  },
  'incident resolved': {
    seq: 25,
    event: 'incident.resolved',
    at: AT,
    ...FLOOD,
    severity: 'resolved',
    incident: INCIDENT,
    openedAt: OPENED,
    story: story({
      resolvedAt: AT,
      active: 0,
      members: [
        {
          network: 'edge-1',
          value: 400_000,
          peak: 1_500_000,
          peakAt: '2026-11-22T09:50:00.000Z',
          joinedAt: OPENED,
          leftAt: AT,
        },
        {
          network: 'edge-2',
          value: 300_000,
          peak: 700_000,
          peakAt: OPENED,
          joinedAt: OPENED,
          leftAt: '2026-11-22T10:00:00.000Z',
        },
      ],
    }),
    stage: 2,
  },
  'incident acknowledged': {
    seq: 26,
    event: 'incident.acknowledged',
    at: AT,
    ...FLOOD,
    severity: 'high',
    incident: INCIDENT,
    openedAt: OPENED,
    story: story(),
    acknowledgedBy: 'arn:aws:iam::123456789012:user/oncall',
    detail: 'looking at it',
  },
  'incident escalated': {
    seq: 27,
    event: 'incident.escalated',
    at: AT,
    ...FLOOD,
    severity: 'high',
    incident: INCIDENT,
    openedAt: OPENED,
    story: story(),
    stage: 2,
  },
  'maintenance window started': {
    seq: 40,
    event: 'maintenance.started',
    at: AT,
    silence: 's-k3j9x2ab',
    windowSince: AT,
    detail: 'weekly filter update',
  },
  'maintenance window ended, no reason': {
    seq: 41,
    event: 'maintenance.ended',
    at: AT,
    silence: 's-k3j9x2ab',
    windowSince: EARLIER,
  },
  'silence ended, a status change still holds': {
    seq: 28,
    event: 'silence.still_holding',
    at: AT,
    silence: 's-k3j9x2ab',
    heldEvent: 'filter.status_changed',
    heldSince: EARLIER,
    from: 'active',
    to: 'mitigating',
    expected: 'active',
    severity: 'high',
    incident: `filter.status_changed/${EARLIER}`,
  },
  'silence ended, a rule still triggered': {
    seq: 29,
    event: 'silence.still_holding',
    at: AT,
    silence: 's-k3j9x2ab',
    heldEvent: 'network.rule_triggered',
    heldSince: EARLIER,
    rule: 'pps',
    network: 'edge-1',
    severity: 'high',
    incident: `pps/edge-1/${EARLIER}`,
  },
  'silence ended, the API still unreachable, no incident': {
    seq: 30,
    event: 'silence.still_holding',
    at: AT,
    silence: 's-k3j9x2ab',
    heldEvent: 'api.unreachable',
    heldSince: EARLIER,
  },
  'test notification': { seq: 0, event: 'monitor.test', at: AT },
  'daily digest, public page': sampleDigestRecord(),
  'weekly digest sent late, private page': sampleDigestRecord({
    period: {
      since: '2026-11-16T07:00:00.000Z',
      until: '2026-11-23T07:00:00.000Z',
      every: 'weekly',
      label: '2026-11-23',
    },
    page: { url: 'https://d111111abcdef8.cloudfront.net/', mode: 'private' },
    late: true,
  }),
  'a digest whose body is damaged': { seq: 8, event: 'monitor.digest', at: AT, digest: '{"digest":' },
  'an event this version does not know': {
    seq: 31,
    event: 'future.event' as AlertRecord['event'],
    at: AT,
    detail: 'from a newer writer',
    severity: 'high',
  },
};

type Golden = Record<string, { readonly stored: string; readonly rendered: RenderedAlert }>;

function render(): Golden {
  return Object.fromEntries(
    Object.entries(RECORDS).map(([name, record]) => [
      name,
      { stored: JSON.stringify(storedAlert(record)), rendered: renderAlert(record, CTX) },
    ]),
  );
}

describe('alert texts, golden (issue 20.3)', () => {
  const now = render();
  if (process.env['GOLDEN_UPDATE'] === '1') writeFileSync(FIXTURE, `${JSON.stringify(now, null, 2)}\n`);
  const golden = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Golden;

  it('covers every event', () => {
    const covered = new Set(Object.values(RECORDS).map((r) => r.event));
    expect(ALERT_EVENTS.filter((event) => !covered.has(event))).toEqual([]);
    expect(Object.keys(golden).sort()).toEqual(Object.keys(RECORDS).sort());
  });

  it.each(Object.keys(RECORDS))('%s: every text and attribute as before', (name) => {
    const expected = golden[name]!.rendered;
    const actual = now[name]!.rendered;
    for (const key of ['subject', 'sms', 'email', 'default', 'https', 'sqs'] as const) {
      expect(actual[key], key).toBe(expected[key]);
    }
    // Order too: the attributes go to SNS in this order.
    expect(JSON.stringify(actual.attributes)).toBe(JSON.stringify(expected.attributes));
  });

  it.each(Object.keys(RECORDS))('%s: stored as before, read back, rendered the same', (name) => {
    const { stored, rendered } = golden[name]!;
    // Today's encoder writes the same item text as the fixture's (the on-disk shape has not changed) ...
    expect(now[name]!.stored).toBe(stored);
    // ... and the fixture's stored text reads back into a record that renders to the golden texts.
    const decoded = fromStoredAlert(JSON.parse(stored) as Record<string, unknown>) as unknown as AlertRecord;
    expect(renderAlert(decoded, CTX)).toEqual(rendered);
  });
});
