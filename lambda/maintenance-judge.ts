/**
 * The maintenance notices' judge (CONTRACT §17, docs/silences.md): on the shard that polls the filter (one per
 * stack), it reads the silences (the cycle's one read, shared with the outboxes) and decides the
 * `maintenance.started` and `maintenance.ended` due ({@link decideNotices}), commits them with its own item's
 * outbox in one conditional write and sends them with the one outbox protocol: each once, whatever the
 * duplicate cycles, shards or SNS outages. A window's notices are never silenced (`silence-window.ts`).
 */
import { commitJudged } from './commit.ts';
import { decideNotices, type NoticeState } from './core/silences/maintenance-notices.ts';
import { describeError, StoreError } from './errors.ts';
import type { Evidence, Judge, Verdict } from './judges/judge.ts';
import { drainOutbox, type OutboxDeps } from './outbox.ts';
import type { SilenceStore, StateStore } from './ports.ts';
import { boundStore } from './until-deadline.ts';

const KEY = 'maintenance';
const NOTHING = { delivered: [], failed: [], suppressed: [], pending: 0 };

/** The notices' judge of one cycle, or undefined (no notices' item, or a shard that does not poll the filter). */
export function maintenanceJudge(
  deps: Omit<OutboxDeps<NoticeState>, 'state'> & {
    readonly maintenance?: StateStore<NoticeState>;
    readonly silences: SilenceStore;
  },
  settings: { readonly pollFilter: boolean },
  deadline: AbortSignal,
): Judge | undefined {
  if (deps.maintenance === undefined || !settings.pollFilter) return undefined;
  const store = boundStore(deps.maintenance, deadline);
  const loading = Promise.all([store.load(), deps.silences.list()]).then(
    ([value, silences]) => ({ value, silences }),
    (error: unknown) => ({ error }),
  );
  return {
    async judge(evidence: Evidence): Promise<Verdict> {
      const loaded = await loading;
      if ('error' in loaded) {
        // The notices wait for a later cycle (nothing is decided without the windows); the cycle goes on, and an
        // alert to send waits too (the outbox meets the same failed read).
        deps.log.warn('cannot read the maintenance windows or their notices; a later cycle sends them', {
          error: describeError(loaded.error),
        });
        return { queued: [], written: [], failures: [], send: async () => NOTHING };
      }
      let done: Awaited<ReturnType<typeof commitJudged<NoticeState>>>;
      try {
        done = await commitJudged(store, 'the maintenance notices', loaded.value, evidence.claim, (item) => {
          const judged = decideNotices(item.state, loaded.silences, evidence.at);
          // Nothing due: nothing written (no write per cycle outside the windows' edges).
          if (judged.stale || !judged.changed) return { stale: true };
          return { stale: false, state: judged.state, alerts: judged.alerts };
        });
      } catch (error) {
        return failed('cannot write the maintenance notices', error);
      }
      const waiting = done.loaded.outbox.length + done.queued.length > 0;
      return {
        queued: done.queued,
        written: done.queued.length > 0 ? [KEY] : [],
        failures: [],
        send: async (options) =>
          waiting
            ? drainOutbox(
                {
                  ...deps,
                  state: store,
                  ...(deps.published === undefined ? {} : { published: deps.published.forScope(`${KEY}:`) }),
                },
                done.loaded,
                done.queued,
                options,
              )
            : NOTHING,
      };
    },
  };
}

function failed(what: string, error: unknown): Verdict {
  const storeError =
    error instanceof StoreError
      ? error
      : new StoreError(`${what}: ${describeError(error)}`, { cause: error });
  return { queued: [], written: [], failures: [{ key: KEY, error: storeError }], send: async () => NOTHING };
}
