/**
 * The channels that AWS forwards alerts to through API destinations, in the order the stack creates them
 * (docs/channels.md). A new channel is one file beside these (its {@link ForwardingChannel}), one entry
 * here, and its infra test; its context key, settings and resources follow from this list.
 */
import type { ForwardingChannel } from './forwarding-channel.ts';
import { pagerDutyChannel } from './pagerduty.ts';
import { webhookChannel } from './webhook.ts';

export type { ChannelFilterPolicy, ChannelValues, ForwardingChannel } from './forwarding-channel.ts';

/** Every forwarding channel. Each `id` and `contextKey` must be unique (checked by a test). */
export const FORWARDING_CHANNELS = [
  pagerDutyChannel,
  webhookChannel,
] as const satisfies readonly ForwardingChannel[];

/** The context key of a forwarding channel: the name of its secret. */
export type ForwardingContextKey = (typeof FORWARDING_CHANNELS)[number]['contextKey'];

/** The context keys of the forwarding channels, in {@link FORWARDING_CHANNELS} order. */
export const FORWARDING_CONTEXT_KEYS: readonly ForwardingContextKey[] = FORWARDING_CHANNELS.map(
  (channel) => channel.contextKey,
);
