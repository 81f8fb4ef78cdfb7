/**
 * The status judge: the filter status and the API's incidents (key rejected, unreachable, unreadable), judged
 * by the pure `decide` over the monitor state (the item pk `state`, sk `monitor`). It reads that state
 * alongside the requests and commits its decision with the one optimistic commit. A shard that polls networks
 * only neither reads nor writes it: it has no say on the filter status or the incidents.
 */
import { commitJudged } from '../commit.ts';
import {
  type DecideSettings,
  decide,
  INITIAL_STATE,
  type MonitorState,
  type PolledRecord,
} from '../core/detect/decide.ts';
import { toCycleObservation } from '../core/detect/observation.ts';
import { monitorIncidentAcknowledged } from '../core/incidents/monitor-incidents.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import type { Snapshot } from '../core/types.ts';
import { describeError, StoreError } from '../errors.ts';
import { drainOutbox, type OutboxDeps } from '../outbox.ts';
import type { StateStore, VersionedState } from '../ports.ts';
import type { Evidence, Judge, Verdict } from './judge.ts';

const EMPTY_STATE: VersionedState = { state: INITIAL_STATE, version: 0, outbox: [] };

/** What the status judge decides by. */
export interface StatusSettings extends DecideSettings {
  readonly networks: readonly string[];
  /** False for shards that poll networks only: the judge then has no say. */
  readonly pollFilter: boolean;
  readonly rules?: readonly Rule[];
}

/** The status judge of one cycle; starts reading the monitor state now. */
export function statusJudge(
  deps: OutboxDeps<MonitorState> & { state: StateStore },
  settings: StatusSettings,
): Judge {
  // The state read runs alongside the requests; a failure surfaces when it is awaited.
  const loading = (settings.pollFilter ? deps.state.load() : Promise.resolve(EMPTY_STATE)).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return {
    async judge(evidence: Evidence): Promise<Verdict> {
      const loaded = await loading;
      if ('error' in loaded)
        throw new StoreError(`cannot read the monitor state: ${describeError(loaded.error)}`);
      if (!settings.pollFilter) {
        return {
          queued: [],
          status: loaded.value.state.status,
          written: [],
          failures: [],
          send: async () => NOTHING,
        };
      }
      const observation = toCycleObservation(
        evidence.at,
        evidence.filter,
        evidence.networks.filter((s): s is Snapshot => s !== undefined),
      );
      const { claim } = evidence;
      const done = await commitJudged(deps.state, 'the monitor state', loaded.value, claim, (item) => {
        // The claim ends after the cycle's deadline, by which it decides: a later stored time is a clock's ahead.
        const decision = decide(
          item.version === 0 ? undefined : item.state,
          observation,
          settings,
          claim.untilMs,
        );
        if (decision.skewedLastAt !== undefined) {
          deps.log.warn(
            'the last applied cycle was timed by a clock ahead: its time is disregarded (docs/design/cycle.md, Clocks)',
            { at: observation.at, lastObservationAt: decision.skewedLastAt },
          );
        }
        if (decision.stale) return { stale: true };
        return {
          stale: false,
          state: withPolled(decision.state, settings, observation.at),
          alerts: decision.alerts,
        };
      });
      return {
        queued: done.queued,
        stale: done.stale,
        status: done.state.status,
        written: [],
        failures: [],
        send: (options) =>
          drainOutbox(
            { ...deps, acknowledged: monitorIncidentAcknowledged },
            done.loaded,
            done.queued,
            options,
          ),
      };
    },
  };
}

const NOTHING = { delivered: [], failed: [], suppressed: [], pending: 0 };

/**
 * The state to write with what this cycle polled and judged by (`shieldwatch status` shows the monitor's own
 * networks and rules, not those of the terminal it runs in): fields of the item the cycle writes anyway.
 */
function withPolled(state: MonitorState, settings: StatusSettings, at: string): MonitorState {
  const polled: PolledRecord = {
    at,
    networks: settings.networks,
    rules: (settings.rules ?? []).map((rule) => rule.text),
  };
  return { ...state, polled };
}
