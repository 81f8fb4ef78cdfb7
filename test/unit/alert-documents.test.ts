/** The `https` (AWS Chatbot) and `sqs` (plain JSON) documents of every published alert (docs/channels.md). */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALERT_DOCUMENT_VERSION,
  type AlertDocument,
  alertIncident,
  CHATBOT_DESCRIPTION_MAX_CHARS,
  CHATBOT_TITLE_MAX_CHARS,
  INCIDENT_MAX_CHARS,
} from '../../lambda/core/alerts/alert-documents.ts';
import { ALERT_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import { type RenderContext, renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import {
  type CycleObservation,
  type DecideSettings,
  decide,
  type MonitorState,
} from '../../lambda/core/detect/decide.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { AlertEvent, AlertRecord } from '../../lambda/core/types.ts';
import { sampleDigestRecord } from '../fixtures/digest-sample.ts';

const AT = '2026-11-22T10:04:12.345Z';
const SINCE = '2026-11-22T09:00:00.000Z';
const CTX: RenderContext = { networks: [] };

/** The shape of the `https` document, as Chatbot reads it. */
interface ChatbotDocument {
  version: string;
  source: string;
  content: { textType: string; title: string; description: string; keywords: string[] };
  metadata: {
    threadId?: string;
    summary: string;
    eventType: string;
    additionalContext: Record<string, string>;
  };
}

function documents(
  alert: AlertRecord,
  ctx: RenderContext = CTX,
): { chat: ChatbotDocument; queue: AlertDocument } {
  const rendered = renderAlert(alert, ctx);
  return { chat: JSON.parse(rendered.https), queue: JSON.parse(rendered.sqs) };
}

/** A record of each kind, as decide, the rules and test-alert make them. */
const SAMPLES: Record<AlertEvent, AlertRecord> = {
  'filter.status_changed': {
    seq: 4,
    event: 'filter.status_changed',
    at: AT,
    from: 'active',
    to: 'mitigating',
    previousSince: SINCE,
    cycles: 2,
    expected: 'active',
    severity: 'high',
    incident: `filter.status_changed/${AT}`,
  },
  'filter.status_reminder': {
    seq: 5,
    event: 'filter.status_reminder',
    at: AT,
    to: 'mitigating',
    statusSince: SINCE,
    expected: 'active',
    severity: 'high',
    incident: `filter.status_changed/${SINCE}`,
  },
  'api.auth_failed': {
    seq: 1,
    event: 'api.auth_failed',
    at: AT,
    cycles: 1,
    detail: 'HTTP 401',
    incident: `api.auth_failed/${AT}`,
  },
  'api.auth_restored': {
    seq: 2,
    event: 'api.auth_restored',
    at: AT,
    cycles: 1,
    previousSince: SINCE,
    detail: 'HTTP 401',
    incident: `api.auth_failed/${SINCE}`,
  },
  'api.unreachable': {
    seq: 1,
    event: 'api.unreachable',
    at: AT,
    cycles: 3,
    detail: 'connect ECONNREFUSED',
    incident: `api.unreachable/${SINCE}`,
  },
  'api.recovered': {
    seq: 2,
    event: 'api.recovered',
    at: AT,
    cycles: 3,
    previousSince: SINCE,
    incident: `api.unreachable/${SINCE}`,
  },
  'filter.status_unreadable': {
    seq: 1,
    event: 'filter.status_unreadable',
    at: AT,
    cycles: 3,
    detail: 'no status at data.state',
    incident: `filter.status_unreadable/${SINCE}`,
  },
  'filter.status_readable': {
    seq: 2,
    event: 'filter.status_readable',
    at: AT,
    cycles: 3,
    previousSince: SINCE,
    incident: `filter.status_unreadable/${SINCE}`,
  },
  'network.rule_triggered': {
    seq: 8,
    event: 'network.rule_triggered',
    at: AT,
    rule: 'pps',
    network: 'net-2',
    value: 90000,
    threshold: 50000,
    ruleText: 'pps: traffic.in_pps > 50000 for 3',
    values: [60000, 75000, 90000],
    incident: `pps/net-2/${AT}`,
    triggeredAt: AT,
  },
  'network.rule_resolved': {
    seq: 9,
    event: 'network.rule_resolved',
    at: AT,
    rule: 'pps',
    network: 'net-2',
    value: 40000,
    threshold: 50000,
    ruleText: 'pps: traffic.in_pps > 50000 for 3',
    values: [45000, 42000, 40000],
    incident: `pps/net-2/${SINCE}`,
    triggeredAt: SINCE,
  },
  'maintenance.started': {
    seq: 9,
    event: 'maintenance.started',
    at: AT,
    windowSince: AT,
    silence: 's-k3j9x2ab',
    detail: 'weekly filter update',
  },
  'maintenance.ended': {
    seq: 9,
    event: 'maintenance.ended',
    at: AT,
    windowSince: SINCE,
    silence: 's-k3j9x2ab',
    detail: 'weekly filter update',
  },
  'silence.still_holding': {
    seq: 9,
    event: 'silence.still_holding',
    at: AT,
    heldSince: SINCE,
    silence: 's-k3j9x2ab',
    heldEvent: 'filter.status_changed',
    from: 'active',
    to: 'mitigating',
    expected: 'active',
    severity: 'high',
    incident: 'filter.status_changed/2026-11-22T09:00:00.000Z',
  },
  'network.unreachable': {
    seq: 3,
    event: 'network.unreachable',
    at: AT,
    incident: `network.unreachable/0/${SINCE}`,
    members: [
      { network: 'net-1', since: SINCE, cycles: 3, errorKind: 'client', httpStatus: 404, error: 'HTTP 404' },
      { network: 'net-2', since: SINCE, cycles: 3, errorKind: 'transport', error: 'timed out after 1000 ms' },
    ],
    detail: 'net-1 (client, HTTP 404), net-2 (transport)',
  },
  'network.recovered': {
    seq: 4,
    event: 'network.recovered',
    at: AT,
    incident: `network.unreachable/0/${SINCE}`,
    members: [{ network: 'net-1', since: SINCE, cycles: 3, errorKind: 'client', httpStatus: 404 }],
    remaining: [],
    detail: 'net-1 (client, HTTP 404)',
  },
  'network.rule_unreadable': {
    seq: 5,
    event: 'network.rule_unreadable',
    at: AT,
    rule: 'pps',
    ruleText: 'pps: traffic.in_pps > 50000',
    path: 'traffic.in_pps',
    incident: `network.rule_unreadable/pps/0/${SINCE}`,
    members: [{ network: 'net-1', since: SINCE, cycles: 3 }],
    detail: 'net-1',
  },
  'network.rule_readable': {
    seq: 6,
    event: 'network.rule_readable',
    at: AT,
    rule: 'pps',
    ruleText: 'pps: traffic.in_pps > 50000',
    path: 'traffic.in_pps',
    incident: `network.rule_unreadable/pps/0/${SINCE}`,
    members: [{ network: 'net-1', since: SINCE, cycles: 3 }],
    remaining: [],
    detail: 'net-1',
  },
  'incident.opened': {
    seq: 1,
    event: 'incident.opened',
    at: AT,
    rule: 'flood',
    ruleText: 'flood: traffic.in.pps > 500k',
    incident: `flood@${AT}`,
    openedAt: AT,
    severity: 'high',
    story: {
      kind: 'rule',
      openedAt: AT,
      members: [{ network: 'edge-1', value: 1_200_000, peak: 1_200_000, peakAt: AT, joinedAt: AT }],
      count: 1,
      total: 1,
      active: 1,
    },
  },
  'incident.updated': {
    seq: 2,
    event: 'incident.updated',
    at: AT,
    rule: 'flood',
    incident: `flood@${SINCE}`,
    openedAt: SINCE,
    severity: 'high',
    story: {
      kind: 'rule',
      openedAt: SINCE,
      members: [{ network: 'edge-2', value: 700_000, peak: 700_000, peakAt: AT, joinedAt: AT }],
      count: 1,
      total: 2,
      active: 2,
    },
  },
  'incident.reminder': {
    seq: 3,
    event: 'incident.reminder',
    at: AT,
    rule: 'flood',
    incident: `flood@${SINCE}`,
    openedAt: SINCE,
    severity: 'high',
    story: {
      kind: 'rule',
      openedAt: SINCE,
      members: [{ network: 'edge-2', value: 700_000, peak: 700_000, peakAt: AT, joinedAt: SINCE }],
      count: 1,
      total: 2,
      active: 1,
    },
  },
  'incident.acknowledged': {
    seq: 5,
    event: 'incident.acknowledged',
    at: AT,
    rule: 'flood',
    incident: `flood@${SINCE}`,
    openedAt: SINCE,
    severity: 'high',
    stage: 2,
    acknowledgedBy: 'arn:aws:sts::123456789012:assumed-role/ops/alice',
    detail: 'on it',
    story: {
      kind: 'rule',
      openedAt: SINCE,
      members: [{ network: 'edge-2', value: 700_000, peak: 700_000, peakAt: AT, joinedAt: SINCE }],
      count: 1,
      total: 2,
      active: 1,
    },
  },
  'incident.escalated': {
    seq: 6,
    event: 'incident.escalated',
    at: AT,
    rule: 'flood',
    incident: `flood@${SINCE}`,
    openedAt: SINCE,
    severity: 'high',
    stage: 2,
    story: {
      kind: 'rule',
      openedAt: SINCE,
      members: [{ network: 'edge-2', value: 700_000, peak: 700_000, peakAt: AT, joinedAt: SINCE }],
      count: 1,
      total: 2,
      active: 1,
    },
  },
  'incident.resolved': {
    seq: 4,
    event: 'incident.resolved',
    at: AT,
    rule: 'flood',
    incident: `flood@${SINCE}`,
    openedAt: SINCE,
    severity: 'resolved',
    story: {
      kind: 'rule',
      openedAt: SINCE,
      resolvedAt: AT,
      members: [{ network: 'edge-1', value: 1, peak: 1_200_000, peakAt: SINCE, joinedAt: SINCE, leftAt: AT }],
      count: 1,
      total: 1,
      active: 0,
    },
  },
  'monitor.test': { seq: 0, event: 'monitor.test', at: AT, detail: 'sent by shieldwatch test-alert' },
  'monitor.digest': { ...sampleDigestRecord(), at: AT },
};

describe('the documents of every event kind', () => {
  it('covers every event', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...ALERT_EVENTS].sort());
  });

  it.each(ALERT_EVENTS)('%s: both are valid JSON in their formats, within the limits', (event) => {
    // Prepare
    const alert = SAMPLES[event];

    // Act
    const rendered = renderAlert(alert, { networks: [], monitorName: 'edge-eu' });
    const chat = JSON.parse(rendered.https) as ChatbotDocument;
    const queue = JSON.parse(rendered.sqs) as AlertDocument;

    // Assess: Chatbot's custom-notification format
    expect(chat).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { textType: 'client-markdown' },
    });
    // The title reads as the subject; what chat markdown could act on (here a rule's path) is in code spans.
    const unmarked = chat.content.title.replace(/`/g, '').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
    expect(unmarked).toBe(rendered.subject);
    expect(chat.content.title.length).toBeLessThanOrEqual(CHATBOT_TITLE_MAX_CHARS);
    expect(chat.content.description.length).toBeLessThanOrEqual(CHATBOT_DESCRIPTION_MAX_CHARS);
    expect(chat.content.description).toContain(`*Event:* \`${event}\``);
    expect(chat.metadata.eventType).toBe(event);
    expect(chat.metadata.additionalContext).toMatchObject({ event, monitor: 'edge-eu', at: AT });
    for (const value of Object.values(chat.metadata.additionalContext)) expect(typeof value).toBe('string');
    // Assess: the plain document
    expect(queue).toMatchObject({
      version: ALERT_DOCUMENT_VERSION,
      event,
      monitor: 'edge-eu',
      at: AT,
      summary: rendered.subject,
      text: rendered.sms,
      seq: alert.seq,
    });
    expect(queue.incident).toBe(alert.incident);
    if (queue.incident !== undefined) {
      expect(chat.metadata.threadId).toBe(queue.incident);
      expect(chat.metadata.additionalContext['incident']).toBe(queue.incident);
    }
  });

  it.each<[AlertEvent, Partial<AlertRecord>, string | undefined, string]>([
    ['filter.status_changed', {}, 'trigger', 'critical'],
    ['filter.status_changed', { severity: 'resolved', to: 'active', from: 'mitigating' }, 'resolve', 'info'],
    [
      'filter.status_changed',
      { severity: undefined, expected: undefined, incident: undefined },
      undefined,
      'warning',
    ],
    ['filter.status_reminder', {}, undefined, 'critical'],
    ['api.auth_failed', {}, 'trigger', 'error'],
    ['api.auth_restored', {}, 'resolve', 'info'],
    ['api.unreachable', {}, 'trigger', 'error'],
    ['api.recovered', {}, 'resolve', 'info'],
    ['filter.status_unreadable', {}, 'trigger', 'error'],
    ['filter.status_readable', {}, 'resolve', 'info'],
    ['network.rule_triggered', {}, 'trigger', 'critical'],
    ['network.rule_resolved', {}, 'resolve', 'info'],
    ['network.unreachable', {}, 'trigger', 'error'],
    ['network.recovered', {}, 'resolve', 'info'],
    // Others of the incident still fail: it goes on, PagerDuty is not told.
    ['network.recovered', { remaining: ['net-2'] }, undefined, 'info'],
    ['network.rule_unreadable', {}, 'trigger', 'error'],
    ['network.rule_readable', {}, 'resolve', 'info'],
    ['incident.opened', {}, 'trigger', 'critical'],
    ['incident.updated', {}, 'trigger', 'critical'],
    ['incident.reminder', {}, undefined, 'critical'],
    ['incident.resolved', {}, 'resolve', 'info'],
    ['incident.acknowledged', {}, 'acknowledge', 'info'],
    ['incident.escalated', {}, 'trigger', 'critical'],
    ['monitor.test', {}, undefined, 'info'],
    ['monitor.digest', {}, undefined, 'info'],
  ])('%s %o: action %s, level %s', (event, change, action, level) => {
    // Act
    const { queue, chat } = documents({ ...SAMPLES[event], ...change });

    // Assess
    expect(queue.action).toBe(action);
    expect(queue.level).toBe(level);
    expect(chat.metadata.additionalContext['action']).toBe(action);
    expect(chat.metadata.additionalContext['level']).toBe(level);
  });

  it('a status change without an expected status opens nothing: no incident, no action', () => {
    // Act
    const { queue, chat } = documents({ seq: 1, event: 'filter.status_changed', at: AT, from: 'a', to: 'b' });

    // Assess
    expect(queue).not.toHaveProperty('incident');
    expect(queue).not.toHaveProperty('action');
    expect(chat.metadata).not.toHaveProperty('threadId');
  });

  it('a rule alert carries the rule fields', () => {
    // Act
    const { queue, chat } = documents(SAMPLES['network.rule_triggered']);

    // Assess
    expect(queue).toMatchObject({
      rule: 'pps',
      network: 'net-2',
      value: 90000,
      threshold: 50000,
      ruleText: 'pps: traffic.in_pps > 50000 for 3',
      values: [60000, 75000, 90000],
      severity: 'high',
    });
    expect(chat.metadata.additionalContext).toMatchObject({ rule: 'pps', network: 'net-2', value: '90000' });
    expect(chat.content.description).toContain('*Rule:* `pps: traffic.in_pps > 50000 for 3`');
  });

  it('a baseline rule carries its baseline', () => {
    // Act
    const { queue } = documents({
      ...SAMPLES['network.rule_triggered'],
      ruleText: 'surge: traffic.in_pps > 3x baseline',
      threshold: 300,
      baseline: 100,
    });

    // Assess
    expect(queue).toMatchObject({ threshold: 300, baseline: 100 });
  });
});

describe('incident: one id for an incident start and its end', () => {
  const settings: DecideSettings = { alertAfter: 2, confirmations: 1, expectedStatus: 'active' };
  const minute = (i: number) => new Date(Date.UTC(2026, 10, 22, 10, i)).toISOString();
  const ok = (i: number, status: string): CycleObservation => ({
    at: minute(i),
    filter: { ok: true, status },
    outcomes: [{ ok: true, httpStatus: 200 }],
  });
  const down = (i: number): CycleObservation => ({
    at: minute(i),
    filter: { ok: false, errorKind: 'transport', error: 'timed out' },
    outcomes: [{ ok: false, errorKind: 'transport', error: 'timed out' }],
  });
  const rejected = (i: number): CycleObservation => ({
    at: minute(i),
    filter: { ok: false, errorKind: 'auth', error: 'HTTP 401', httpStatus: 401 },
    outcomes: [{ ok: false, errorKind: 'auth', error: 'HTTP 401', httpStatus: 401 }],
  });
  const unreadable = (i: number): CycleObservation => ({
    at: minute(i),
    filter: { ok: false, errorKind: 'contract', error: 'no status', httpStatus: 200 },
    outcomes: [{ ok: false, errorKind: 'contract', error: 'no status', httpStatus: 200 }],
  });

  function queueDocuments(observations: CycleObservation[]): AlertDocument[] {
    let state: MonitorState | undefined;
    const out: AlertDocument[] = [];
    for (const observation of observations) {
      const decision = decide(state, observation, settings);
      state = decision.state;
      out.push(...decision.alerts.map((alert) => documents(alert).queue));
    }
    return out;
  }

  it.each<[string, CycleObservation[], string[]]>([
    [
      'the status away and back, with a change and a reminder between',
      [ok(0, 'active'), ok(1, 'mitigating'), ok(2, 'blocked'), ok(3, 'active')],
      ['filter.status_changed', 'filter.status_changed', 'filter.status_changed'],
    ],
    [
      'the API unreachable and back',
      [ok(0, 'active'), down(1), down(2), down(3), ok(4, 'active')],
      ['api.unreachable', 'api.recovered'],
    ],
    [
      'the key rejected and accepted again',
      [ok(0, 'active'), rejected(1), rejected(2), ok(3, 'active')],
      ['api.auth_failed', 'api.auth_restored'],
    ],
    [
      'the status unreadable and readable again',
      [ok(0, 'active'), unreadable(1), unreadable(2), ok(3, 'active')],
      ['filter.status_unreadable', 'filter.status_readable'],
    ],
  ])('%s', (_name, observations, events) => {
    // Act
    const docs = queueDocuments(observations);

    // Assess
    expect(docs.map((d) => d.event)).toEqual(events);
    expect(docs[0]!.action).toBe('trigger');
    expect(docs.at(-1)!.action).toBe('resolve');
    expect(new Set(docs.map((d) => d.incident)).size).toBe(1);
    expect(docs[0]!.incident).toMatch(/^[a-z._]+\/2026-11-22T10:0\d:00\.000Z$/);
  });

  it('two incidents of the same kind get two ids', () => {
    // Act
    const docs = queueDocuments([
      ok(0, 'active'),
      ok(1, 'down'),
      ok(2, 'active'),
      ok(3, 'down'),
      ok(4, 'active'),
    ]);

    // Assess
    expect(docs.map((d) => d.action)).toEqual(['trigger', 'resolve', 'trigger', 'resolve']);
    expect(docs[0]!.incident).toBe(docs[1]!.incident);
    expect(docs[2]!.incident).toBe(docs[3]!.incident);
    expect(docs[0]!.incident).not.toBe(docs[2]!.incident);
  });

  it('a traffic rule trigger and its resolve, as the evaluator makes them', () => {
    // Prepare
    const { rules } = parseRules('pps: traffic.in_pps > 50000 for 2');
    let state: Parameters<typeof evaluateRules>[0]['state'];
    const docs: AlertDocument[] = [];

    // Act
    for (const [i, value] of [100, 90000, 95000, 80000, 100, 100].entries()) {
      const at = minute(i);
      const result = evaluateRules({
        rules,
        networks: ['net-2'],
        state,
        at,
        observations: [{ networkId: 'net-2', at, readings: { pps: { kind: 'value', value } } }],
      });
      state = result.state;
      docs.push(...result.alerts.map((alert, n) => documents({ ...alert, seq: i * 10 + n }).queue));
    }

    // Assess
    expect(docs.map((d) => [d.event, d.action])).toEqual([
      ['network.rule_triggered', 'trigger'],
      ['network.rule_resolved', 'resolve'],
    ]);
    expect(docs[1]!.incident).toBe(docs[0]!.incident);
  });

  it('a record saved before alerts carried ids: a recovery names the incident its raise would have had', () => {
    // Prepare: decide's raise for the same incident
    const [raise] = decide(
      { ...decide(undefined, ok(0, 'active'), settings).state },
      rejected(1),
      settings,
    ).alerts;
    const { incident: _dropped, ...old } = SAMPLES['api.auth_restored'];

    // Act
    const recovered = alertIncident({ ...old, previousSince: minute(1) });

    // Assess
    expect(recovered).toBe(raise!.incident);
  });

  it('an id longer than PagerDuty allows is cut the same way every time, and two long ids stay apart', () => {
    // Prepare
    const long = (tail: string) => `${'r'.repeat(40)}/${'n'.repeat(512)}${tail}/${AT}`;

    // Act
    const a = alertIncident({ ...SAMPLES['network.rule_triggered'], incident: long('a') });
    const again = alertIncident({ ...SAMPLES['network.rule_resolved'], incident: long('a') });
    const b = alertIncident({ ...SAMPLES['network.rule_triggered'], incident: long('b') });

    // Assess
    expect(a!.length).toBeLessThanOrEqual(INCIDENT_MAX_CHARS);
    expect(again).toBe(a);
    expect(b).not.toBe(a);
  });
});

describe('hostile statuses (fast-check)', () => {
  const hostile = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 2000 }),
    fc.string({
      unit: fc.constantFrom(
        '<',
        '>',
        '&',
        '`',
        '*',
        '_',
        '~',
        '"',
        '\\',
        '\u202E',
        '\u200B',
        '\u0000',
        '\n',
        '\uD800',
        'a',
        ' ',
      ),
      maxLength: 400,
    }),
    fc.constantFrom('<!channel>', '<!here|here>', '<@U123>', '<https://evil.example|click>', '@here', ''),
  );

  it('stay exact in the plain document (up to its field limit), inert in the chat document, within every limit', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, fc.boolean(), (from, to, detail, expected) => {
        // Prepare
        const alert: AlertRecord = {
          seq: 3,
          event: 'filter.status_changed',
          at: AT,
          from,
          to,
          detail,
          previousSince: SINCE,
          ...(expected
            ? { expected: from, severity: 'resolved' as const, incident: `filter.status_changed/${SINCE}` }
            : {}),
        };

        // Act
        const rendered = renderAlert(alert, CTX);
        const chat = JSON.parse(rendered.https) as ChatbotDocument;
        const queue = JSON.parse(rendered.sqs) as AlertDocument;

        // Assess
        expect(chat.content.title.length).toBeLessThanOrEqual(CHATBOT_TITLE_MAX_CHARS);
        expect(chat.content.description.length).toBeLessThanOrEqual(CHATBOT_DESCRIPTION_MAX_CHARS);
        expect(chat.metadata.summary.length).toBeLessThanOrEqual(CHATBOT_TITLE_MAX_CHARS);
        // Nothing from the API can mention, link or ping: no raw angle bracket reaches the chat text.
        expect(`${chat.content.title}${chat.content.description}`).not.toContain('<');
        expect(rendered.https.length + rendered.sqs.length).toBeLessThan(24_000);
        if (from.length <= 1024) expect(queue.from).toBe(from);
        if (to.length <= 1024) expect(queue.to).toBe(to);
        expect(queue.action).toBe(expected ? 'resolve' : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('a status that tries to ping the channel is shown, not obeyed', () => {
    // Act
    const { chat, queue } = documents({ ...SAMPLES['filter.status_changed'], to: '<!channel> `rm` *now*' });

    // Assess
    expect(chat.content.description).toContain(
      '*New status:* `"&lt;!channel> &lt;U+0060>rm&lt;U+0060> *now*"`',
    );
    expect(chat.content.title).toContain('&lt;!channel>');
    expect(queue.to).toBe('<!channel> `rm` *now*');
  });
});

describe('hostile markdown in the chat title and lead line, every event kind (issue 19.8, fast-check)', () => {
  const attacks = fc.constantFrom(
    '[login](https://evil.example)',
    '*URGENT* _now_',
    '*URGENT now*',
    '~gone~',
    '`code` ``x``',
    '<!channel>',
    '<!here|here>',
    '<@U123>',
    '<https://evil.example|click>',
    '@here',
    '@channel please',
    'https://evil.example/x?y=1',
    'www.evil.example',
    'login.evil.example',
    ':rotating_light:',
    '# heading',
    '> quote',
    '- item',
    '1. item',
    '[a]: https://evil.example',
    'a\nb',
    '![img](https://evil.example/i.png)',
    '__bold__ **bold**',
    '|table|',
    'back\\slash',
  );
  const markdownish = fc.string({
    unit: fc.constantFrom(...'*_~`[]()<>!@#:/\\|.-+=&"\n ', 'a', 'x', '1', 'http', 'evil.example'),
    maxLength: 60,
  });
  const hostile = fc.oneof(
    attacks,
    markdownish,
    fc.tuple(attacks, attacks).map(([a, b]) => `${a} ${b}`),
  );

  /** What is left of a chat text once its code spans are taken out; each span must be closed. */
  function outsideSpans(text: string): string {
    expect(text.split('`').length % 2, `unbalanced backticks in ${JSON.stringify(text)}`).toBe(1);
    return text.replace(/`[^`]*`/g, ' ');
  }

  /** Markup, links, mentions or a domain left outside the code spans, as the chat would act on them. */
  function rawMarkup(text: string): string | undefined {
    // `->` as a word of its own is the title's separator, plain text in every chat (also a status that is
    // only `->`: fast-check found `a -> ->`, which a replace of ` -> ` left half-read).
    const outside = outsideSpans(text)
      .replace(/(^| )->(?= |$)/g, ' ')
      .replace(/^\[[A-Za-z0-9-]+\] /, '');
    const found =
      /[*_~`<>|@#\\[\]&]/.exec(outside) ??
      /[A-Za-z][.:][A-Za-z]/.exec(outside) ??
      /:\/\//.exec(outside) ??
      /!\[/.exec(outside) ??
      /\n/.exec(outside);
    return found === null ? undefined : `${found[0]} in ${JSON.stringify(outside)}`;
  }

  it.each(Object.keys(SAMPLES) as AlertEvent[])('%s: no raw markup outside code spans', (event) => {
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, hostile, (status, other, detail, name, network) => {
        // Prepare: every text field of the record from the API (or hostile configuration) at once
        const alert: AlertRecord = {
          ...SAMPLES[event],
          ...(SAMPLES[event].to === undefined ? {} : { to: status }),
          ...(SAMPLES[event].from === undefined ? {} : { from: other }),
          ...(SAMPLES[event].expected === undefined ? {} : { expected: other }),
          ...(SAMPLES[event].detail === undefined ? {} : { detail }),
          ...(SAMPLES[event].rule === undefined ? {} : { rule: name, ruleText: `${name}: ${network} > 1` }),
          ...(SAMPLES[event].network === undefined ? {} : { network }),
        };

        // Act
        const rendered = renderAlert(alert, { networks: [], monitorName: name });
        const chat = JSON.parse(rendered.https) as ChatbotDocument;
        const lead = chat.content.description.split('\n')[0]!;

        // Assess
        expect(chat.content.title.length).toBeLessThanOrEqual(CHATBOT_TITLE_MAX_CHARS);
        expect(rawMarkup(chat.content.title)).toBeUndefined();
        expect(rawMarkup(lead)).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });

  it.each([
    ['[login](https://evil.example)', '`[login](https://evil.example`)'],
    ['*URGENT* _now_', '`*URGENT* _now_`'],
  ])('a status %s is shown in a code span in the title and the lead line', (to, shown) => {
    // Act
    const { chat } = documents(
      { ...SAMPLES['filter.status_changed'], to },
      { networks: [], monitorName: 'edge-eu' },
    );

    // Assess
    expect(chat.content.title).toBe(`[edge-eu] HIGH: Filter status changed: active -> ${shown}`);
    expect(chat.content.description.split('\n')[0]).toContain(
      `filter status is now "${shown}" (was "active")`,
    );
  });

  it('a status that is only the separator (fast-check seed -1037906527) reads as plain text, markup in spans', () => {
    const link = '[login](https://evil.example) [login](https://evil.example)';
    const { chat } = documents(
      { ...SAMPLES['filter.status_changed'], from: link, to: '->' },
      { networks: [], monitorName: link },
    );
    expect(chat.content.title).toContain('`[login](https://evil.example`');
    expect(rawMarkup(chat.content.title)).toBeUndefined();
    expect(rawMarkup(chat.content.description.split('\n')[0]!)).toBeUndefined();
  });

  it('a title that must be cut keeps its span closed and within 250 characters', () => {
    // Prepare: a status of backticks, each shown as an escape ten times its length
    const { chat } = documents({ ...SAMPLES['filter.status_changed'], to: '`'.repeat(90) });

    // Assess
    expect(chat.content.title.length).toBeLessThanOrEqual(CHATBOT_TITLE_MAX_CHARS);
    expect(chat.content.title).toMatch(/`\.\.\.$/);
    expect(rawMarkup(chat.content.title)).toBeUndefined();
  });
});

describe('the examples of docs/channels.md are what the code sends', () => {
  const page = readFileSync(new URL('../../docs/channels.md', import.meta.url), 'utf8');
  /** The JSON code blocks after a heading, up to the next heading. */
  const examples = (heading: string): unknown[] => {
    const start = page.indexOf(`\n${heading}\n`);
    const end = page.indexOf('\n## ', start + heading.length + 2);
    const section = page.slice(start, end);
    return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
  };
  const change = renderAlert(
    {
      seq: 12,
      event: 'filter.status_changed',
      at: '2026-11-22T10:04:12.345Z',
      from: 'active',
      to: 'mitigating',
      previousSince: '2026-11-21T08:00:00.000Z',
      cycles: 1,
      expected: 'active',
      severity: 'high',
      incident: 'filter.status_changed/2026-11-22T10:04:12.345Z',
    },
    { networks: [], monitorName: 'edge-eu' },
  );
  const ruleEnd = renderAlert(
    {
      seq: 31,
      event: 'network.rule_resolved',
      at: '2026-11-22T10:21:00.000Z',
      rule: 'pps',
      network: 'edge-2',
      value: 40000,
      threshold: 300000,
      ruleText: 'pps: traffic.in.pps > 300k for 2',
      values: [42000, 40000],
      incident: 'pps/edge-2/2026-11-22T10:09:00.000Z',
      triggeredAt: '2026-11-22T10:09:00.000Z',
      peak: 910000,
      peakAt: '2026-11-22T10:14:00.000Z',
    },
    { networks: [], monitorName: 'edge-eu' },
  );

  it('the sqs examples', () => {
    expect(examples('## The `sqs` document')).toEqual([JSON.parse(change.sqs), JSON.parse(ruleEnd.sqs)]);
  });

  it('the https example', () => {
    expect(examples('## The `https` document')).toEqual([JSON.parse(change.https)]);
  });
});
