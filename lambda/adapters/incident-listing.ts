/**
 * The one listing of incidents (CONTRACT §15, "One view"), read from the store for the report and the hosted
 * status page: the same sources `shieldwatch incidents` lists from (the monitor state item, every shard's health
 * item, every rule item, every incident item with its members assembled, the events), handed to
 * {@link listIncidents}. Reads only, and only Queries: the state items with one paged Query on pk `state`
 * (their `state` attribute decoded, their outboxes left alone, so nothing under pk `outbox` is read and nothing
 * is ever written), the members under pk `incident-members` and `incident-archive`, the events under pk `event`.
 * The status page publisher's role allows exactly these partitions (lib/constructs/status-page-publisher.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INITIAL_STATE, monitorStateOf } from '../core/detect/decide.ts';
import {
  type HealthShard,
  type IncidentSources,
  type IncidentView,
  listIncidents,
  type RuleItemCells,
  ruleTriggersBefore,
} from '../core/incidents/incident-list.ts';
import { type Incident, type IncidentScopeState, withMembers } from '../core/incidents/incidents.ts';
import type { StoredEvent } from '../ports.ts';
import { DynamoStore } from './dynamo-store.ts';
import { HEALTH_SCOPE_PREFIX, healthLayout } from './health-item.ts';
import { decodeIncidentScope, INCIDENT_SCOPE_PREFIX } from './incident-items.ts';
import { DynamoIncidentMemberStore } from './incident-members.ts';
import { decodeRuleScope, RULE_SCOPE_PREFIX } from './rule-items.ts';
import { queryItems, type ScopeConnection } from './scope-store.ts';
import { KEY } from './table-schema.ts';

/** How many stored events are read at once for the triggers before `since` (as `shieldwatch incidents` does). */
const TRIGGER_READS = 25;

/** What the listing is read for. */
export interface ListingQuery {
  /**
   * The events from this time on (ISO-8601) name the resolved incidents listed; every open incident is listed
   * whatever its age. @default every stored event
   */
  readonly since?: string;
}

/** The state items (pk `state`) as the listing reads them: decoded, their outboxes not loaded. */
interface StateItems {
  monitor: IncidentSources['monitor'] | undefined;
  health: HealthShard[];
  ruleItems: RuleItemCells[];
  incidents: Array<{ rule: string; state: IncidentScopeState }>;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

async function readStateItems(conn: ScopeConnection): Promise<StateItems> {
  const out: StateItems = { monitor: undefined, health: [], ruleItems: [], incidents: [] };
  for await (const item of queryItems(conn, { condition: 'pk = :pk', values: { ':pk': KEY.state } })) {
    const sk = str(item['sk']);
    if (sk === undefined || sk.includes('/')) continue;
    const stored = item['state'];
    if (sk === KEY.stateSort) out.monitor = stored === undefined ? undefined : monitorStateOf(stored);
    else if (sk.startsWith(HEALTH_SCOPE_PREFIX)) {
      const suffix = sk.slice(HEALTH_SCOPE_PREFIX.length);
      if (!/^\d{1,6}$/.test(suffix)) continue;
      const shard = Number(suffix);
      out.health.push({ shard, state: healthLayout(shard).decode(stored) });
    } else if (sk.startsWith(RULE_SCOPE_PREFIX)) out.ruleItems.push(decodeRuleScope(stored).rules);
    else if (sk.startsWith(INCIDENT_SCOPE_PREFIX)) {
      out.incidents.push({
        rule: sk.slice(INCIDENT_SCOPE_PREFIX.length),
        state: decodeIncidentScope(stored),
      });
    }
  }
  out.health.sort((a, b) => a.shard - b.shard);
  return out;
}

/**
 * Every incident the store knows (CONTRACT §13, §15): each open one whatever its kind and age, and those the
 * events from `query.since` on name; with the same ids, states, acknowledgements, members and peaks as
 * `shieldwatch incidents --format json`. Reads only (see the module's note).
 */
export async function readIncidentListing(
  client: DynamoDBClient,
  table: string,
  query: ListingQuery = {},
): Promise<IncidentView[]> {
  const stats = { reads: 0, writes: 0 };
  const conn: ScopeConnection = {
    doc: DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
    table,
    stats,
  };
  const members = new DynamoIncidentMemberStore(conn);
  const store = new DynamoStore(client, table);
  const [items, events] = await Promise.all([
    readStateItems(conn),
    store.queryEvents(query.since === undefined ? {} : { since: query.since }),
  ]);
  const assemble = async (rule: string, incident: Incident | undefined) =>
    incident === undefined || incident.parts === undefined
      ? incident
      : withMembers(incident, await members.membersOf(rule, incident.id));
  const scopes = await Promise.all(
    items.incidents.map(async ({ rule, state }) => {
      const [open, last] = await Promise.all([assemble(rule, state.open), assemble(rule, state.last)]);
      return { ...(open === undefined ? {} : { open }), ...(last === undefined ? {} : { last }) };
    }),
  );
  const sources: IncidentSources = {
    scopes,
    monitor: items.monitor ?? INITIAL_STATE,
    health: items.health,
    ruleItems: items.ruleItems,
    events,
  };
  const times = query.since === undefined ? [] : ruleTriggersBefore(sources, query.since);
  if (times.length === 0) return listIncidents(sources);
  const older: StoredEvent[] = [];
  for (let i = 0; i < times.length; i += TRIGGER_READS) {
    const batch = times.slice(i, i + TRIGGER_READS);
    const read = await Promise.all(batch.map((at) => store.queryEvents({ since: at, until: at })));
    older.push(...read.flat());
  }
  return listIncidents({ ...sources, ruleEvents: [...older, ...events] });
}
