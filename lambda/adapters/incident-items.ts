/**
 * The incident items (docs/design/incidents.md): one per rule, pk `state`, sk `incident#<rule>`, an outbox
 * scope of its own on the one exactly-once protocol (`scope-store.ts`). Its state is one JSON text (readings
 * past DynamoDB's 1e125 survive); its spilled alerts live under pk `outbox`, sk `incident#<rule>/<seq>`, its
 * event items under `<at>#incident#<rule>#<seq>`, so its sequence numbers never meet another scope's.
 */
import { EMPTY_INCIDENT_SCOPE, type IncidentScopeState } from '../core/incidents/incidents.ts';
import type { ScopeLayout } from './scope-store.ts';

/** Sort key prefix of the incident items. */
export const INCIDENT_SCOPE_PREFIX = 'incident#';

/** The sort key of `rule`'s incident item. */
export const incidentKey = (rule: string): string => `${INCIDENT_SCOPE_PREFIX}${rule}`;

/**
 * A stored state back, or the empty scope when the text cannot be read (a damaged item must not stop the
 * cycle; its next change rewrites it).
 */
export function decodeIncidentScope(stored: unknown): IncidentScopeState {
  if (typeof stored !== 'string') return EMPTY_INCIDENT_SCOPE;
  try {
    const value = JSON.parse(stored) as Partial<IncidentScopeState>;
    if (typeof value !== 'object' || value === null || !Number.isSafeInteger(value.nextSeq)) {
      return EMPTY_INCIDENT_SCOPE;
    }
    return {
      nextSeq: value.nextSeq as number,
      shards: typeof value.shards === 'object' && value.shards !== null ? value.shards : {},
      ...(value.open === undefined ? {} : { open: value.open }),
      ...(value.last === undefined ? {} : { last: value.last }),
    };
  } catch {
    return EMPTY_INCIDENT_SCOPE;
  }
}

/** The layout of `rule`'s incident item. Rule names are `A-Z a-z 0-9 _ -`: no `/` or `#` in a key. */
export function incidentLayout(rule: string): ScopeLayout<IncidentScopeState> {
  const key = incidentKey(rule);
  return {
    stateSort: key,
    spillSort: (seq) => `${key}/${String(seq).padStart(12, '0')}`,
    spillRange: { condition: 'begins_with(sk, :scope)', values: { ':scope': `${key}/` } },
    eventScope: key,
    initial: EMPTY_INCIDENT_SCOPE,
    encode: (state) => JSON.stringify(state),
    decode: decodeIncidentScope,
  };
}
