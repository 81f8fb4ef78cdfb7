/** A webhook as a forwarding channel (docs/channels.md). */
import type { ForwardingChannel } from './forwarding-channel.ts';

/** The webhook request: the `sqs` document itself. */
export const WEBHOOK_INPUT_TEMPLATE = '<$.body>';

/**
 * A webhook: every alert of the topic, the `sqs` document as it is, POSTed to the https URL held in the
 * secret (the URL is its credential). The connection's header names the sending stack.
 */
export const webhookChannel = {
  id: 'Webhook',
  contextKey: 'webhookUrlSecret',
  label: 'the webhook',
  secretHolds: "the webhook's https URL",
  endpoint: ({ secret }) => secret,
  apiKey: { header: 'X-Shieldwatch-Monitor', value: ({ stackName }) => stackName },
  inputTemplate: WEBHOOK_INPUT_TEMPLATE,
} as const satisfies ForwardingChannel;
