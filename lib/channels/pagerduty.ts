/** PagerDuty's Events API v2 as a forwarding channel (docs/channels.md). */
import type { AlertAction } from '../../lambda/core/alerts/alert-documents.ts';
import type { ForwardingChannel } from './forwarding-channel.ts';

/** PagerDuty's Events API v2. */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

/** The connection's body parameter that carries PagerDuty's routing key (Events API v2 wants it in the body). */
export const PAGERDUTY_ROUTING_KEY_PARAMETER = 'routing_key';

/**
 * The PagerDuty Events API v2 request made of an `sqs` document (docs/channels.md): `event_action` from
 * `action`, `dedup_key` from `incident` (so a duplicate collapses and the end resolves the page),
 * `payload.summary` the subject, `severity` the level, `source` the monitor. `<$.body.x>` is EventBridge Pipes'
 * substitution from the SQS message body. The routing key is not here: the pipe's configuration is returned in
 * clear by `pipes:DescribePipe`, so the key rides on the connection as a secret body parameter
 * ({@link PAGERDUTY_ROUTING_KEY_PARAMETER}), which EventBridge adds to this JSON object when it calls PagerDuty.
 */
export const PAGERDUTY_INPUT_TEMPLATE = [
  '{',
  '"event_action": "<$.body.action>",',
  '"dedup_key": "<$.body.incident>",',
  '"payload": {',
  '"summary": "<$.body.summary>",',
  '"severity": "<$.body.level>",',
  '"source": "<$.body.monitor>",',
  '"timestamp": "<$.body.at>",',
  '"component": "<$.body.event>",',
  '"custom_details": <$.body>',
  '}',
  '}',
].join('\n');

/**
 * The actions PagerDuty is told about: an incident opens (or escalates), someone acknowledges it, it closes
 * (the only alerts with an `action`); each is the Events API v2 `event_action` of the same name.
 */
const PAGED_ACTIONS: readonly AlertAction[] = ['trigger', 'acknowledge', 'resolve'];

/**
 * PagerDuty: incidents only (alerts with an `action`), as Events API v2 events. The routing key is both the
 * connection's API-key header (which PagerDuty ignores; a connection needs one) and a secret body parameter.
 */
export const pagerDutyChannel = {
  id: 'PagerDuty',
  contextKey: 'pagerDutyRoutingKeySecret',
  label: 'PagerDuty',
  secretHolds: 'the PagerDuty Events API v2 routing key',
  endpoint: () => PAGERDUTY_EVENTS_URL,
  apiKey: { header: 'X-Routing-Key', value: ({ secret }) => secret },
  secretBodyParameters: { [PAGERDUTY_ROUTING_KEY_PARAMETER]: ({ secret }) => secret },
  inputTemplate: PAGERDUTY_INPUT_TEMPLATE,
  filterPolicy: { action: PAGED_ACTIONS },
} as const satisfies ForwardingChannel;
