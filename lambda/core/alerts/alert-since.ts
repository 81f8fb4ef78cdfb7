/**
 * The time an alert is "since", which means something different in each family: a reminder's `statusSince`
 * (when the current status was first seen), a rule alert's `triggeredAt` (when the rule triggered on the
 * network), an incident alert's `openedAt` (when the incident opened), an announcement's `heldSince` (when the
 * change a silence held back began). In memory each family's record names its own; stored (outbox, spilled
 * and event items) and in the `sqs` document they share the one attribute `since`, as every earlier version
 * wrote it, so items written before the split and after it read the same (docs/design/storage.md). Pure, and
 * light: the store's codecs import it.
 */

import { own } from '../own-record.ts';
import type { AlertRecord } from '../types.ts';
import { type EventFamily, eventTexts } from './alert-events.ts';

/** The stored attribute, and the `sqs` document's field (docs/alert-document.schema.json). */
export const SINCE_ATTRIBUTE = 'since';

/** Each family's own name for its time; a family absent here has none. */
export const SINCE_FIELDS = {
  status: 'statusSince',
  rule: 'triggeredAt',
  grouped: 'openedAt',
  silence: 'heldSince',
  maintenance: 'windowSince',
} as const satisfies Partial<Record<EventFamily, string>>;

/** One of {@link SINCE_FIELDS}' names. */
export type SinceField = (typeof SINCE_FIELDS)[keyof typeof SINCE_FIELDS];

/** The name `event`'s family gives its time; undefined for a family without one or an unknown event. */
export function sinceField(event: unknown): SinceField | undefined {
  const family = eventTexts(event)?.family;
  return family === undefined ? undefined : own<SinceField>(SINCE_FIELDS, family);
}

/** The record's own time as the attribute `since` holds it: its family's field, when that is a string. */
export function sinceOf(alert: Pick<AlertRecord, 'event'>): string | undefined {
  const field = sinceField(alert.event);
  const value = field === undefined ? undefined : (alert as Readonly<Record<string, unknown>>)[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A record's fields as stored: its family's time under {@link SINCE_ATTRIBUTE} instead of its own name, in the
 * same place (so an item's text is byte for byte what earlier versions wrote); every other field as it is (a
 * time of another family's name is not the record's, and is not stored as its `since`).
 */
export function toStoredSince(record: object): Record<string, unknown> {
  const fields = record as Readonly<Record<string, unknown>>;
  return renamed(fields, sinceField(fields['event']), SINCE_ATTRIBUTE);
}

/**
 * Stored fields back as a record's: the attribute {@link SINCE_ATTRIBUTE} under the name the event's family
 * gives it. For a family without one, or an event this version does not know (a newer writer), the attribute
 * stays as it is, so an entry this version rewrites (a claim) loses nothing.
 */
export function fromStoredSince(stored: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return renamed(stored, SINCE_ATTRIBUTE, sinceField(stored['event']));
}

/** `fields` with the key `from` named `to`, in its place; as they are without both. */
function renamed(
  fields: Readonly<Record<string, unknown>>,
  from: string | undefined,
  to: string | undefined,
): Record<string, unknown> {
  if (from === undefined || to === undefined || !Object.hasOwn(fields, from)) return { ...fields };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key === from ? to : key] = value;
  return out;
}
