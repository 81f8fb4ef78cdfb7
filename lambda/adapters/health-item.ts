/**
 * The network health item of a shard (docs/design/storage.md): pk `state`, sk `health#<shard>`, an outbox scope
 * of its own on the one exactly-once protocol (`scope-store.ts`). Its state is one compact JSON text; its
 * spilled alerts live under pk `outbox`, sk `health#<shard>/<seq>`, its event items under
 * `<at>#health#<shard>#<seq>`, so its sequence numbers never meet the monitor's or a rule item's.
 */
import { type HealthState, INITIAL_HEALTH, toHealthState } from '../core/detect/network-health.ts';
import type { ScopeLayout } from './scope-store.ts';

/** Sort key prefix of the health items. */
export const HEALTH_SCOPE_PREFIX = 'health#';

/** The layout of shard `shard`'s health item. */
export function healthLayout(shard: number): ScopeLayout<HealthState> {
  const key = `${HEALTH_SCOPE_PREFIX}${shard}`;
  return {
    stateSort: key,
    spillSort: (seq) => `${key}/${String(seq).padStart(12, '0')}`,
    spillRange: { condition: 'begins_with(sk, :scope)', values: { ':scope': `${key}/` } },
    eventScope: key,
    initial: INITIAL_HEALTH,
    encode: (state) => JSON.stringify(state),
    decode: toHealthState,
  };
}
