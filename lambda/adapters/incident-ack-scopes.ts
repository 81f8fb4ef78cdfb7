/**
 * The incident scopes the acknowledge function and `shieldwatch ack` work on: the incident store's
 * (`DynamoStore.incidentScope`, docs/design/incidents.md, Ports and files). Until that store is in this tree,
 * the same layout is built here from the design page (pk `state`, sk `incident#<rule>`, state as compact JSON
 * text, spilled alerts under `incident#<rule>/<seq>`), so both sides read and write the same item.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EMPTY_INCIDENT_SCOPE, type IncidentScopeState } from '../core/incidents.ts';
import type { IncidentScopes } from '../incident-acks.ts';
import type { StateStore } from '../ports.ts';
import { DynamoStore } from './dynamo-store.ts';
import { DynamoScopeStore, type ScopeConnection } from './scope-store.ts';

const seq12 = (seq: number): string => String(seq).padStart(12, '0');

/** The incident scopes of `table`. */
export function incidentScopesOf(client: DynamoDBClient, table: string): IncidentScopes {
  const store = new DynamoStore(client, table) as DynamoStore & Partial<IncidentScopes>;
  if (typeof store.incidentScope === 'function') return store as IncidentScopes;
  const conn = (store as unknown as { conn: ScopeConnection }).conn;
  return {
    incidentScope(rule: string): StateStore<IncidentScopeState> {
      const key = `incident#${rule}`;
      return new DynamoScopeStore<IncidentScopeState>(conn, {
        stateSort: key,
        spillSort: (seq) => `${key}/${seq12(seq)}`,
        spillRange: { condition: 'begins_with(sk, :scope)', values: { ':scope': `${key}/` } },
        eventScope: key,
        initial: EMPTY_INCIDENT_SCOPE,
        encode: (state) => JSON.stringify(state),
        decode: (stored) =>
          typeof stored === 'string' ? (JSON.parse(stored) as IncidentScopeState) : EMPTY_INCIDENT_SCOPE,
      });
    },
  };
}
