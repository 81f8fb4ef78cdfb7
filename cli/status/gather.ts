/**
 * What `shieldwatch status` reads (the store only, never the API): the monitor state item and its outbox, the
 * newest filter snapshot, every rule item, incident item and health item, the silences, and the newest snapshot
 * of each network shown or with an open rule incident; built into the {@link StatusReport} (cli/status/report.ts).
 */
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { ConfigError } from '../../lambda/config.ts';
import { parseMaintenance } from '../../lambda/core/silences/maintenance-config.ts';
import type { WindowRequest } from '../../lambda/core/silences/maintenance-window.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { SETTINGS } from '../../lambda/settings.ts';
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
  /** The windows declared in `SHIELDWATCH_MAINTENANCE` (context `maintenance`), when set. */
  readonly maintenance?: readonly WindowRequest[] | undefined;
}

/** `SHIELDWATCH_MAINTENANCE` when set: its windows' occurrences show in the present; a bad value names it. */
export function declaredWindows(
  env: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): WindowRequest[] | undefined {
  const text = env[SETTINGS.maintenance.env];
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseMaintenance(text, nowMs, false);
  if (!parsed.ok) throw new ConfigError(parsed.problems.map((p) => `${SETTINGS.maintenance.env}: ${p}`));
  return parsed.requests;
}

/** Reads what `status` shows from `store` and builds the report. */
export async function gatherStatus(store: CliStore, options: GatherOptions): Promise<StatusReport> {
  const { given, format, expected } = options;
  const view = new DynamoStore(store.client, options.table);
  // The windows declared in context expand by the CLI's clock, as the stored ones do (cli/commands/report.ts too).
  const silenceView = new DynamoSilenceStore(store.client, options.table, {
    now: options.nowMs,
    ...(options.maintenance === undefined ? {} : { windows: options.maintenance }),
  });
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
