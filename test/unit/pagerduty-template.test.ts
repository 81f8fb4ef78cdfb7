/**
 * The PagerDuty input template of the stack's pipe, run over real `sqs` documents as EventBridge Pipes would
 * (docs/channels.md): the request must be a PagerDuty Events API v2 event whatever the alert holds.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AlertDocument } from '../../lambda/core/alerts/alert-documents.ts';
import { renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import { acknowledgeIncident } from '../../lambda/core/incidents/incident-ack.ts';
import {
  type IncidentScopeState,
  judgeIncident,
  type ShardMembers,
} from '../../lambda/core/incidents/incidents.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';
import { channelsContext, resourceIdStartingWith, synthMonitor } from '../infra/synth.ts';

const ROUTING_KEY_REF = '{{resolve:secretsmanager:shieldwatch/pagerduty:SecretString:::}}';
const AT = '2026-11-22T10:04:12.345Z';
const SINCE = '2026-11-22T09:00:00.000Z';

/**
 * EventBridge Pipes' input transformation, as documented: each `<$.path>` is the value at that JSON path of the
 * event (here an SQS record whose JSON body is parsed); inside quotes a value is inserted as JSON string
 * content, outside as JSON. A path that is not there throws, so that the template uses only fields every
 * document has.
 */
function transform(template: string, event: unknown): string {
  return template.replace(
    /("?)<\$((?:\.[A-Za-z0-9_-]+)*)>("?)/g,
    (_match, open: string, path: string, close: string) => {
      let value: unknown = event;
      for (const key of path.split('.').slice(1)) {
        if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) {
          throw new Error(`the template reads $${path}, which this event does not have`);
        }
        value = (value as Record<string, unknown>)[key];
      }
      if (open === '"' && close === '"') return JSON.stringify(String(value));
      return `${open}${JSON.stringify(value)}${close}`;
    },
  );
}

/** An SQS record as a pipe sees it, the body being the `sqs` text SNS delivered raw. */
function sqsRecord(body: string) {
  return {
    messageId: 'm-1',
    receiptHandle: 'r',
    body: JSON.parse(body),
    attributes: {},
    messageAttributes: {},
  };
}

/** A connection's invocation body parameter, as the template declares it. */
interface BodyParameter {
  Key: string;
  Value: string;
  IsValueSecret?: boolean;
}

/**
 * The request an API destination sends: the pipe's transformed JSON payload with the connection's body
 * parameters added at its top level, the connection's values taking precedence (EventBridge API reference,
 * HttpParameters and ConnectionBodyParameter).
 */
function apiDestinationRequest(payload: string, bodyParameters: readonly BodyParameter[]): string {
  const body = JSON.parse(payload) as Record<string, unknown>;
  for (const parameter of bodyParameters) body[parameter.Key] = parameter.Value;
  return JSON.stringify(body);
}

/** The PagerDuty Events API v2 event shape (https://developer.pagerduty.com: Events API v2, /v2/enqueue). */
interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'acknowledge' | 'resolve';
  dedup_key: string;
  payload: {
    summary: string;
    severity: 'critical' | 'error' | 'warning' | 'info';
    source: string;
    timestamp: string;
    component: string;
    custom_details: AlertDocument;
  };
}

function expectPagerDutyEvent(request: string, document: AlertDocument): PagerDutyEvent {
  const event = JSON.parse(request) as PagerDutyEvent;
  expect(Object.keys(event).sort()).toEqual(['dedup_key', 'event_action', 'payload', 'routing_key']);
  expect(event.routing_key).toBe(ROUTING_KEY_REF);
  expect(event.event_action).toBe(document.action);
  expect(['trigger', 'acknowledge', 'resolve']).toContain(event.event_action);
  expect(event.dedup_key).toBe(document.incident);
  expect(event.dedup_key.length).toBeGreaterThan(0);
  expect(event.dedup_key.length).toBeLessThanOrEqual(255);
  expect(event.payload.summary).toBe(document.summary);
  expect(event.payload.summary.length).toBeGreaterThan(0);
  expect(event.payload.summary.length).toBeLessThanOrEqual(1024);
  expect(['critical', 'error', 'warning', 'info']).toContain(event.payload.severity);
  expect(event.payload.source).toBe(document.monitor);
  expect(event.payload.timestamp).toBe(document.at);
  expect(event.payload.custom_details).toEqual(document);
  return event;
}

const INCIDENTS: AlertRecord[] = [
  {
    seq: 1,
    event: 'filter.status_changed',
    at: AT,
    from: 'active',
    to: 'mitigating',
    expected: 'active',
    severity: 'high',
    incident: `filter.status_changed/${AT}`,
  },
  {
    seq: 2,
    event: 'filter.status_changed',
    at: AT,
    from: 'mitigating',
    to: 'active',
    previousSince: SINCE,
    expected: 'active',
    severity: 'resolved',
    incident: `filter.status_changed/${SINCE}`,
  },
  {
    seq: 3,
    event: 'api.unreachable',
    at: AT,
    cycles: 3,
    detail: 'HTTP 503',
    incident: `api.unreachable/${SINCE}`,
  },
  {
    seq: 4,
    event: 'api.recovered',
    at: AT,
    cycles: 3,
    previousSince: SINCE,
    incident: `api.unreachable/${SINCE}`,
  },
  {
    seq: 5,
    event: 'api.auth_failed',
    at: AT,
    cycles: 1,
    detail: 'HTTP 401',
    incident: `api.auth_failed/${AT}`,
  },
  {
    seq: 6,
    event: 'filter.status_unreadable',
    at: AT,
    cycles: 3,
    incident: `filter.status_unreadable/${SINCE}`,
  },
  {
    seq: 7,
    event: 'network.rule_triggered',
    at: AT,
    rule: 'pps',
    network: 'net "2"',
    value: 90000,
    threshold: 50000,
    ruleText: 'pps: traffic.in_pps > 50000',
    values: [90000],
    incident: `pps/net "2"/${AT}`,
  },
];

describe('the PagerDuty input template of the pipe', () => {
  let pipeTemplate: string;
  let webhookTemplate: string;
  let bodyParameters: BodyParameter[];
  /** The pipe's transformation, then the connection's body parameters: what PagerDuty receives. */
  const request = (event: unknown) => apiDestinationRequest(transform(pipeTemplate, event), bodyParameters);

  beforeAll(() => {
    const stack = synthMonitor(channelsContext);
    const pipes = stack.findResources('AWS::Pipes::Pipe');
    pipeTemplate =
      pipes[resourceIdStartingWith(stack, 'AWS::Pipes::Pipe', 'PagerDuty')]!['Properties'].TargetParameters
        .InputTemplate;
    webhookTemplate =
      pipes[resourceIdStartingWith(stack, 'AWS::Pipes::Pipe', 'Webhook')]!['Properties'].TargetParameters
        .InputTemplate;
    bodyParameters =
      stack.findResources('AWS::Events::Connection')[
        resourceIdStartingWith(stack, 'AWS::Events::Connection', 'PagerDuty')
      ]!['Properties'].AuthParameters.InvocationHttpParameters?.BodyParameters ?? [];
  });

  it('the routing key comes from the connection, as a secret, never from the pipe (DescribePipe shows it)', () => {
    // Prepare
    const sqs = renderAlert(INCIDENTS[0]!, { networks: [] }).sqs;

    // Act
    const payload = JSON.parse(transform(pipeTemplate, sqsRecord(sqs))) as Record<string, unknown>;

    // Assess
    expect(payload).not.toHaveProperty('routing_key');
    expect(pipeTemplate).not.toContain('secretsmanager');
    expect(bodyParameters).toEqual([{ Key: 'routing_key', Value: ROUTING_KEY_REF, IsValueSecret: true }]);
  });

  it.each(INCIDENTS.map((alert) => [`${alert.event} ${alert.severity ?? ''}`, alert] as const))(
    '%s becomes a PagerDuty event',
    (_name, alert) => {
      // Prepare
      const document = JSON.parse(renderAlert(alert, { networks: [] }).sqs) as AlertDocument;

      // Act
      const sent = request(sqsRecord(renderAlert(alert, { networks: [] }).sqs));

      // Assess
      expectPagerDutyEvent(sent, document);
    },
  );

  it('a start and its end share the dedup_key, so the end resolves the page', () => {
    // Act
    const [start, end] = [INCIDENTS[2]!, INCIDENTS[3]!].map(
      (alert) => JSON.parse(request(sqsRecord(renderAlert(alert, { networks: [] }).sqs))) as PagerDutyEvent,
    );

    // Assess
    expect([start!.event_action, end!.event_action]).toEqual(['trigger', 'resolve']);
    expect(end!.dedup_key).toBe(start!.dedup_key);
    expect(start!.payload.severity).toBe('error');
  });

  it('an incident opened, acknowledged and resolved is trigger, acknowledge, resolve of one dedup_key (issue 25)', () => {
    // Prepare: a real incident of one rule, acknowledged by the CLI, then resolved by the judge.
    const subject = { rule: 'flood' };
    let members: ShardMembers | undefined;
    const judge = (state: IncidentScopeState | undefined, minute: number, open: boolean) => {
      const judged = judgeIncident(state, {
        subject,
        shard: 0,
        at: new Date(Date.UTC(2026, 10, 22, 10, minute)).toISOString(),
        views: [{ network: 'edge-1', open, value: 900_000 }],
        groupIntervalMs: 300_000,
        ...(members === undefined ? {} : { members }),
      });
      if (!judged.stale) members = judged.members;
      return judged;
    };
    const opened = judge(undefined, 0, true);
    if (opened.stale || !opened.changed) throw new Error('expected an opening');
    const acked = acknowledgeIncident({ ...opened.state, nextSeq: 2 }, opened.state.open!.id, {
      by: 'arn:aws:iam::123456789012:user/ops',
      at: new Date(Date.UTC(2026, 10, 22, 10, 1)).toISOString(),
    });
    if (acked.outcome !== 'acknowledged') throw new Error('expected an acknowledgement');
    const resolved = judge({ ...acked.state }, 2, false);
    if (resolved.stale || !resolved.changed) throw new Error('expected a resolve');
    const alerts = [opened.alerts[0]!, acked.alert, resolved.alerts[0]!].map((a, i) => ({
      ...a,
      seq: i + 1,
    }));

    // Act
    const sent = alerts.map((alert) => {
      const sqs = renderAlert(alert as AlertRecord, { networks: [] }).sqs;
      return expectPagerDutyEvent(request(sqsRecord(sqs)), JSON.parse(sqs) as AlertDocument);
    });

    // Assess
    expect(sent.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(new Set(sent.map((e) => e.dedup_key))).toEqual(new Set([opened.state.open!.id]));
  });

  it("the PagerDuty subscription's filter policy lets trigger, acknowledge and resolve through, not reminders", () => {
    // Act
    const stack = synthMonitor(channelsContext);
    const policies = Object.values(stack.findResources('AWS::SNS::Subscription'))
      .map((r) => r['Properties'].FilterPolicy)
      .filter((p) => p !== undefined && 'action' in p);

    // Assess
    expect(policies).toContainEqual({ action: ['trigger', 'acknowledge', 'resolve'] });
  });

  it('stays a valid PagerDuty event whatever the statuses hold (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        (from, to) => {
          // Prepare
          const alert: AlertRecord = { ...INCIDENTS[0]!, from, to };
          const sqs = renderAlert(alert, { networks: [], monitorName: 'edge "eu" \\ 1' }).sqs;

          // Act
          const sent = request(sqsRecord(sqs));

          // Assess
          expectPagerDutyEvent(sent, JSON.parse(sqs) as AlertDocument);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the helper refuses a path the document does not have (so the template above reads only real fields)', () => {
    expect(() => transform('{"x": "<$.body.nothing>"}', sqsRecord('{"a":1}'))).toThrow(/\$\.body\.nothing/);
  });

  it('the webhook receives the sqs document itself', () => {
    // Prepare
    const sqs = renderAlert(INCIDENTS[6]!, { networks: [] }).sqs;

    // Act
    const sent = transform(webhookTemplate, sqsRecord(sqs));

    // Assess
    expect(JSON.parse(sent)).toEqual(JSON.parse(sqs));
  });
});
