/**
 * The incidents' members, in items of their own (docs/design/incidents.md, Any size; CONTRACT §13): each shard
 * keeps its members of each rule's incident in a working set, beside the incident item, so that no item grows
 * with the number of networks. A working set is one pointer item, pk `incident-members`, sk `<rule>#<shard>#`,
 * conditioned on its `version`; its members are JSON text, inline when small, else in chunk items of one
 * generation (`<rule>#<shard>#<gen>#<n>`) written before the pointer names them, so a reader never sees half a
 * set. A finished incident's working sets are kept under pk `incident-archive`, sk `<incident>#<shard>#<n>`, for
 * `incidents show`. Rule names are `A-Z a-z 0-9 _ -` and incident ids `<rule>@<ISO time>`: no `#` in either.
 */
import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { EMPTY_SHARD_MEMBERS, type IncidentMember, type ShardMembers } from '../core/incidents/incidents.ts';
import type { IncidentMemberStore, LoadedMembers } from '../ports.ts';
import { num, str } from './dynamo-items.ts';
import { isConditionFailure, queryItems, type ScopeConnection, writeBatch } from './scope-store.ts';

/** Partition keys of the working sets and of the finished incidents' members. */
export const MEMBERS_PK = 'incident-members';
export const ARCHIVE_PK = 'incident-archive';
/** Members text kept in the pointer item itself (one write) up to this many characters. */
export const INLINE_MAX_CHARS = 60_000;
/** Characters per chunk item (at most 4 bytes each in UTF-8: under DynamoDB's 400 KB). */
export const CHUNK_CHARS = 90_000;

const pointerKey = (rule: string, shard: number) => `${rule}#${shard}#`;

/** A stored working set back; a damaged one reads as empty (its next write replaces it). */
export function decodeMembers(text: string | undefined): ShardMembers {
  if (text === undefined) return EMPTY_SHARD_MEMBERS;
  try {
    const value = JSON.parse(text) as Partial<ShardMembers>;
    if (typeof value !== 'object' || value === null || !Array.isArray(value.members)) {
      return EMPTY_SHARD_MEMBERS;
    }
    const members = value.members.filter(isMember);
    return {
      ...(typeof value.incident === 'string' ? { incident: value.incident } : {}),
      members,
      ...(typeof value.previous === 'object' &&
      value.previous !== null &&
      typeof value.previous.incident === 'string' &&
      Array.isArray(value.previous.members)
        ? {
            previous: {
              incident: value.previous.incident,
              members: value.previous.members.filter(isMember),
            },
          }
        : {}),
    };
  } catch {
    return EMPTY_SHARD_MEMBERS;
  }
}

function isMember(value: unknown): value is IncidentMember {
  const m = value as Partial<IncidentMember> | null;
  return (
    typeof m === 'object' && m !== null && typeof m.network === 'string' && typeof m.joinedAt === 'string'
  );
}

/** A text cut into chunks of at most {@link CHUNK_CHARS} characters (never inside a surrogate pair). */
export function chunkText(text: string): string[] {
  const chunks: string[] = [];
  let from = 0;
  while (from < text.length) {
    let to = Math.min(text.length, from + CHUNK_CHARS);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to -= 1;
    chunks.push(text.slice(from, to));
    from = to;
  }
  return chunks.length === 0 ? [''] : chunks;
}

/** The members of incidents in the monitor's table. */
export class DynamoIncidentMemberStore implements IncidentMemberStore {
  constructor(private readonly conn: ScopeConnection) {}

  /** The same store, each request aborted once `signal` aborts. */
  withSignal(signal: AbortSignal): DynamoIncidentMemberStore {
    return new DynamoIncidentMemberStore({ ...this.conn, signal });
  }

  private get http(): { abortSignal: AbortSignal } | undefined {
    return this.conn.signal === undefined ? undefined : { abortSignal: this.conn.signal };
  }

  async loadMembers(rule: string, shard: number): Promise<LoadedMembers> {
    const prefix = pointerKey(rule, shard);
    let pointer: Record<string, unknown> | undefined;
    const chunks = new Map<string, Record<string, unknown>>();
    for await (const item of queryItems(this.conn, {
      condition: 'pk = :pk AND begins_with(sk, :prefix)',
      values: { ':pk': MEMBERS_PK, ':prefix': prefix },
    })) {
      const sk = str(item['sk']);
      if (sk === undefined) continue;
      if (sk === prefix) pointer = item;
      else chunks.set(sk, item);
    }
    if (pointer === undefined) return { set: EMPTY_SHARD_MEMBERS, version: 0, stale: [...chunks.keys()] };
    const version = num(pointer['version']) ?? 0;
    const gen = str(pointer['gen']);
    const count = num(pointer['chunks']) ?? 0;
    const mine = new Set<string>();
    let text = str(pointer['members']);
    if (gen !== undefined) {
      const parts: string[] = [];
      for (let i = 0; i < count; i++) {
        const sk = `${prefix}${gen}#${i}`;
        mine.add(sk);
        const part = str(chunks.get(sk)?.['text']);
        if (part === undefined) {
          parts.length = 0;
          break;
        }
        parts.push(part);
      }
      text = parts.length === count ? parts.join('') : undefined;
    }
    return {
      set: decodeMembers(text),
      version,
      stale: [...chunks.keys()].filter((sk) => !mine.has(sk)),
    };
  }

  async writeMembers(
    rule: string,
    shard: number,
    set: ShardMembers,
    loaded: LoadedMembers,
  ): Promise<boolean> {
    const prefix = pointerKey(rule, shard);
    const text = JSON.stringify(set);
    let gen: string | undefined;
    let count = 0;
    if (text.length > INLINE_MAX_CHARS) {
      // A new generation's chunks first: the pointer names them only once they are all stored.
      gen = randomBytes(6).toString('hex');
      const chunks = chunkText(text);
      count = chunks.length;
      const puts = chunks.map((part, i) => ({
        PutRequest: { Item: { pk: MEMBERS_PK, sk: `${prefix}${gen}#${i}`, text: part } },
      }));
      for (let i = 0; i < puts.length; i += 25) {
        await writeBatch(this.conn, puts.slice(i, i + 25), 'incident member chunk(s)');
      }
    }
    this.conn.stats.writes++;
    try {
      await this.conn.doc.send(
        new PutCommand({
          TableName: this.conn.table,
          Item: {
            pk: MEMBERS_PK,
            sk: prefix,
            version: loaded.version + 1,
            ...(gen === undefined ? { members: text } : { gen, chunks: count }),
          },
          ...(loaded.version === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'version = :v',
                ExpressionAttributeValues: { ':v': loaded.version },
              }),
        }),
        this.http,
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    // The generation the pointer named before (and any left by a cycle that died): no longer read.
    for (const sk of loaded.stale) await this.remove(sk);
    return true;
  }

  async archiveMembers(rule: string, shard: number, set: ShardMembers): Promise<void> {
    if (set.incident === undefined || set.members.length === 0) return;
    const chunks = chunkText(JSON.stringify({ ...set, previous: undefined, rule }));
    const puts = chunks.map((text, i) => ({
      PutRequest: {
        Item: { pk: ARCHIVE_PK, sk: `${set.incident}#${shard}#${i}`, text, chunks: chunks.length },
      },
    }));
    for (let i = 0; i < puts.length; i += 25) {
      await writeBatch(this.conn, puts.slice(i, i + 25), 'archived incident member chunk(s)');
    }
  }

  async membersOf(rule: string, id: string): Promise<IncidentMember[]> {
    const byNetwork = new Map<string, IncidentMember>();
    // Archived sets first: a working set of the same shard, if still on this incident, is newer.
    const archived = new Map<string, string[]>();
    for await (const item of queryItems(this.conn, {
      condition: 'pk = :pk AND begins_with(sk, :prefix)',
      values: { ':pk': ARCHIVE_PK, ':prefix': `${id}#` },
    })) {
      const sk = str(item['sk']);
      const text = str(item['text']);
      if (sk === undefined || text === undefined) continue;
      const [, shard, n] = sk.slice(id.length).split('#');
      const parts = archived.get(shard ?? '') ?? [];
      parts[Number(n)] = text;
      archived.set(shard ?? '', parts);
    }
    for (const parts of archived.values()) {
      for (const m of decodeMembers(parts.join('')).members) byNetwork.set(m.network, m);
    }
    const shards = new Set<number>();
    for await (const item of queryItems(this.conn, {
      condition: 'pk = :pk AND begins_with(sk, :prefix)',
      values: { ':pk': MEMBERS_PK, ':prefix': `${rule}#` },
    })) {
      const [, shard, gen] = (str(item['sk']) ?? '').slice(rule.length).split('#');
      if (gen === '' && shard !== undefined && /^\d+$/.test(shard)) shards.add(Number(shard));
    }
    for (const shard of [...shards].sort((a, b) => a - b)) {
      const { set } = await this.loadMembers(rule, shard);
      if (set.incident === id) for (const m of set.members) byNetwork.set(m.network, m);
    }
    return [...byNetwork.values()];
  }

  private async remove(sk: string): Promise<void> {
    this.conn.stats.writes++;
    try {
      await this.conn.doc.send(
        new DeleteCommand({ TableName: this.conn.table, Key: { pk: MEMBERS_PK, sk } }),
        this.http,
      );
    } catch {
      // Left for a later write to remove: it is never read.
    }
  }
}
