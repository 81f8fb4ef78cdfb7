/**
 * `shieldwatch backtest`'s reading of the store: each watched network's snapshots a page at a time (only the
 * time, the cycle, ok and the body), turned into readings at once, merged oldest first, put back together
 * into cycles and replayed. Reads only.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { snapshotPages } from '../../lambda/adapters/snapshot-pages.ts';
import type { Rule, RuleAlert } from '../../lambda/core/rules/rule-types.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import {
  CycleGrouper,
  mergeOldestFirst,
  type ReplayObservation,
  RuleReplay,
  snapshotReadings,
} from './replay.ts';

/** The attributes a replay reads of a snapshot: not its figures, latency or errors. */
const REPLAY_ATTRIBUTES = ['at', 'cycleId', 'ok', 'body'] as const;

/** What {@link replayHistory} reads. */
export interface ReplayHistoryInput {
  readonly client: DynamoDBClient;
  readonly table: string;
  readonly rules: readonly Rule[];
  /** The networks the rules watch. */
  readonly networks: readonly string[];
  readonly since?: string;
  readonly until?: string;
  /** Called after each page read, with the number of snapshots in it. */
  readonly onPage?: (snapshotsInPage: number) => void;
}

/** One network's snapshots as observations of the rules, oldest first; each body dropped once read. */
async function* observationsOf(
  pages: AsyncIterable<readonly Snapshot[]>,
  rules: readonly Rule[],
  networkId: string,
): AsyncGenerator<ReplayObservation> {
  for await (const page of pages) {
    for (const snapshot of page) {
      yield {
        networkId,
        at: snapshot.at,
        cycleId: snapshot.cycleId,
        readings: snapshotReadings(rules, snapshot),
      };
    }
  }
}

/** Replays the stored history of the networks through the rules: the alerts, oldest first, and the replay. */
export async function replayHistory(
  input: ReplayHistoryInput,
): Promise<{ readonly alerts: RuleAlert[]; readonly replay: RuleReplay }> {
  const { client, table, rules, networks } = input;
  const streams = networks.map((networkId) =>
    observationsOf(
      snapshotPages(
        client,
        table,
        { kind: 'network', networkId },
        {
          ...(input.since === undefined ? {} : { since: input.since }),
          ...(input.until === undefined ? {} : { until: input.until }),
          attributes: REPLAY_ATTRIBUTES,
          ...(input.onPage === undefined ? {} : { onPage: input.onPage }),
        },
      ),
      rules,
      networkId,
    ),
  );
  const replay = new RuleReplay(rules, networks);
  const alerts: RuleAlert[] = [];
  const grouper = new CycleGrouper();
  for await (const observation of mergeOldestFirst(streams)) {
    for (const cycle of grouper.push(observation)) alerts.push(...replay.apply(cycle));
  }
  for (const cycle of grouper.end()) alerts.push(...replay.apply(cycle));
  return { alerts, replay };
}
