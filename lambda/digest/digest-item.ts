/**
 * The digest's item (CONTRACT §19, docs/digest.md): pk `state`, sk `digest`, an outbox scope of its own on the
 * one exactly-once protocol (`scope-store.ts`). Its state is one compact JSON text: the next sequence number
 * and the end of the last period whose digest was committed (`lastUntil`); its spilled alerts live under pk
 * `outbox`, sk `digest/<seq>`, its event items under `<at>#digest#<seq>`, so its sequence numbers never meet
 * another scope's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoScopeStore, type ScopeLayout } from '../adapters/scope-store.ts';

/** Sort key of the digest's item under pk `state`. */
export const DIGEST_SCOPE = 'digest';

/** What the digest's item remembers. */
export interface DigestState {
  readonly nextSeq: number;
  /** The end (ISO-8601 UTC) of the newest period whose digest was committed; none before the first run. */
  readonly lastUntil?: string;
}

export const INITIAL_DIGEST_STATE: DigestState = { nextSeq: 1 };

/** The state as stored (JSON text), read back; what is not one reads as the initial state. */
export function toDigestState(stored: unknown): DigestState {
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      return INITIAL_DIGEST_STATE;
    }
  }
  if (typeof value !== 'object' || value === null) return INITIAL_DIGEST_STATE;
  const v = value as Record<string, unknown>;
  const nextSeq =
    typeof v['nextSeq'] === 'number' && Number.isSafeInteger(v['nextSeq']) && v['nextSeq'] >= 1
      ? v['nextSeq']
      : 1;
  const lastUntil =
    typeof v['lastUntil'] === 'string' && Number.isFinite(Date.parse(v['lastUntil']))
      ? v['lastUntil']
      : undefined;
  return { nextSeq, ...(lastUntil === undefined ? {} : { lastUntil }) };
}

export const DIGEST_LAYOUT: ScopeLayout<DigestState> = {
  stateSort: DIGEST_SCOPE,
  spillSort: (seq) => `${DIGEST_SCOPE}/${String(seq).padStart(12, '0')}`,
  spillRange: { condition: 'begins_with(sk, :scope)', values: { ':scope': `${DIGEST_SCOPE}/` } },
  eventScope: DIGEST_SCOPE,
  initial: INITIAL_DIGEST_STATE,
  encode: (state) => JSON.stringify(state),
  decode: toDigestState,
};

/** The digest's item in one table. */
export function digestStore(client: DynamoDBClient, table: string): DynamoScopeStore<DigestState> {
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return new DynamoScopeStore({ doc, table, stats: { writes: 0, reads: 0 } }, DIGEST_LAYOUT);
}
