/**
 * The maintenance notices' item (CONTRACT §17, docs/silences.md): pk `state`, sk `maintenance`, an outbox scope
 * of its own on the one exactly-once protocol (`scope-store.ts`). Its state is one compact JSON text (each
 * window's last occurrence announced); its spilled alerts live under pk `outbox`, sk `maintenance/<seq>`, its
 * event items under `<at>#maintenance#<seq>`, so its sequence numbers never meet another scope's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INITIAL_NOTICES, type NoticeState, toNoticeState } from '../core/silences/maintenance-notices.ts';
import { DynamoScopeStore, type ScopeLayout } from './scope-store.ts';

/** Sort key of the notices' item. */
export const MAINTENANCE_SCOPE = 'maintenance';

export const MAINTENANCE_LAYOUT: ScopeLayout<NoticeState> = {
  stateSort: MAINTENANCE_SCOPE,
  spillSort: (seq) => `${MAINTENANCE_SCOPE}/${String(seq).padStart(12, '0')}`,
  spillRange: { condition: 'begins_with(sk, :scope)', values: { ':scope': `${MAINTENANCE_SCOPE}/` } },
  eventScope: MAINTENANCE_SCOPE,
  initial: INITIAL_NOTICES,
  encode: (state) => JSON.stringify(state),
  decode: toNoticeState,
};

/** The notices' item in one table. */
export function maintenanceNoticeStore(client: DynamoDBClient, table: string): DynamoScopeStore<NoticeState> {
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return new DynamoScopeStore({ doc, table, stats: { writes: 0, reads: 0 } }, MAINTENANCE_LAYOUT);
}
