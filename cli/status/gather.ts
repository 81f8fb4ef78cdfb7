/**
 * What `shieldwatch status` reads (the store only, never the API): the monitor state item and its outbox, the
 * newest filter snapshot, every rule item, incident item and health item, the silences, and the newest snapshot
 * of each network shown or with an open rule incident; built into the {@link StatusReport} (cli/status/report.ts).
 */
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { type CliStore, storeCall } from '../store/open.ts';
import { monitorNetworks, statusReport } from './report.ts';
import type { StatusReport } from './report-types.ts';

/** Networks whose last figures the table shows at most (JSON lists every recorded one without figures). */
const NETWORKS_SHOWN = 50;

/** How many networks' newest snapshots are read at once: a sharded monitor may record thousands. */
const SNAPSHOT_READS = 25;

/** What to gather. */
export interface GatherOptions {
  readonly table: string;
  /** `--networks`: these instead of the monitor's own. */
  readonly given: readonly string[] | undefined;
  /** JSON lists every recorded network; the table the first {@link NETWORKS_SHOWN}. */
  readonly format: 'table' | 'json';
  /** `SHIELDWATCH_EXPECTED_STATUS`, when set. */
  readonly expected: string | undefined;
  readonly nowMs: () => number;
}

/** Reads what `status` shows from `store` and builds the report. */
export async function gatherStatus(store: CliStore, options: GatherOptions): Promise<StatusReport> {
  const { given, format, expected } = options;
  const view = new DynamoStore(store.client, options.table);
  const silenceView = new DynamoSilenceStore(store.client, options.table);
  return storeCall(store, async () => {
    const [{ state, outbox }, filter, ruleItems, silences, incidentScopes, healthItems] = await Promise.all([
      view.load(),
      view.querySnapshots({ kind: 'filter' }, { limit: 1 }),
      view.allRuleItems(),
      silenceView.list(),
      view.findIncidents(),
      view.allHealthItems(),
    ]);
    // The networks shown, and those with an open rule incident (for the value their rule reads now).
    const recorded = monitorNetworks(state, ruleItems);
    const shown = given ?? (format === 'json' ? recorded : recorded.slice(0, NETWORKS_SHOWN));
    const draft = statusReport({
      state,
      outbox,
      filter: filter[0],
      networks: [],
      expected,
      nowMs: 0,
      ruleItems,
    });
    const wanted = [...new Set([...shown, ...draft.ruleIncidents.map((i) => i.network)])];
    const found = new Map<string, Snapshot | undefined>();
    for (let i = 0; i < wanted.length; i += SNAPSHOT_READS) {
      const batch = wanted.slice(i, i + SNAPSHOT_READS);
      const snapshots = await Promise.all(
        batch.map((networkId) => view.querySnapshots({ kind: 'network', networkId }, { limit: 1 })),
      );
      for (const [j, id] of batch.entries()) found.set(id, snapshots[j]?.[0]);
    }
    return statusReport({
      state,
      outbox,
      filter: filter[0],
      networks: shown.map((id) => ({ id, last: found.get(id) })),
      expected,
      nowMs: options.nowMs(),
      ruleItems,
      silences,
      incidentScopes,
      healthItems,
      lastOf: (id) => found.get(id),
      networksFrom: given === undefined ? 'monitor' : 'option',
    });
  });
}
