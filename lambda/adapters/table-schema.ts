/**
 * The table's schema, shared by the store (lambda/adapters/) and the `SnapshotTable` construct (lib/), so that
 * key names and the TTL attribute are written once. No SDK here: the stack imports it too.
 */
import type { Target } from '../core/types.ts';

/** Partition and sort key attribute names (both strings). */
export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';

/**
 * Table layout (one table, `pk` + `sk`, both strings):
 * - snapshots: pk `filter` or `network#<id>`, sk `<at ISO>#<cycleId>`, TTL `expiresAt` (epoch seconds);
 * - alert events: pk `event`, sk `<at ISO>#<seq, 12 digits>`, no TTL;
 * - the monitor state and its outbox: pk `state`, sk `monitor`;
 * - alerts moved out of the outbox during a long SNS outage: pk `outbox`, sk `<seq, 12 digits>`;
 * - silences (docs/silences.md): pk `silence`, sk `<id>`, TTL `expiresAt` some days after the silence ends.
 */
export const KEY = {
  filter: 'filter',
  networkPrefix: 'network#',
  event: 'event',
  outbox: 'outbox',
  silence: 'silence',
  state: 'state',
  stateSort: 'monitor',
} as const;

/** TTL attribute of snapshot items. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** Partition key of a target's snapshots. */
export function targetKey(target: Target): string {
  return target.kind === 'filter' ? KEY.filter : `${KEY.networkPrefix}${target.networkId}`;
}
