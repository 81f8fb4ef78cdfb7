/**
 * The outbox: alerts committed with the monitor state, sent in order, each once. Claims keep two cycles from
 * sending the same alert; an alert leaves the outbox only after SNS accepted it, or a silence suppressed it;
 * a long SNS outage moves the oldest waiting alerts out of the state item.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { renderAlert } from './core/alert-text.ts';
import { type Silence, silenceFor } from './core/silence.ts';
import type { AlertRecord, NetworkFigures } from './core/types.ts';
import { describeError } from './errors.ts';
import type { AlertPublisher, OutboxEntry, SilenceStore, StateStore, VersionedState } from './ports.ts';

/**
 * A cycle holds the alerts it sends until its deadline plus this margin; every publish ends by the
 * deadline, so the next scheduled cycle always finds the claims of a cycle that died expired.
 */
export const CLAIM_GRACE_MS = 5000;
/** Waiting alerts kept in the state item before the oldest move to items of their own. */
export const SPILL_ABOVE = 64;
/** Newest waiting alerts that stay in the state item when the others move. */
const SPILL_KEEP = 16;
/** Longest wait between two attempts to remove a published alert from the outbox (full jitter below it). */
const REMOVE_BACKOFF_CAP_MS = 1000;
/**
 * A removal not done by then (a normal write takes milliseconds; a throttled one is retried by the SDK with
 * back-off) has the message id recorded alongside, while there is still time before the deadline.
 */
const MARK_AFTER_MS = 250;
/** Most time a publish leaves before the deadline to hand its claim back when it fails (half the floor). */
const MAX_HAND_BACK_MS = 1000;
/** Published alerts whose removal is unconfirmed that a process remembers at most. */
const MAX_REMEMBERED = 256;

/** A published or failed alert of this cycle. */
export interface DeliveryOutcome {
  readonly seq: number;
  readonly event: AlertRecord['event'];
  readonly messageId?: string;
  readonly error?: string;
  /** The silence that suppressed it: recorded, not sent. */
  readonly suppressedBy?: string;
  /**
   * True when an earlier cycle had published it (its message id was recorded) but could not remove it from
   * the outbox: this cycle only removed it, it did not publish it again.
   */
  readonly alreadyPublished?: boolean;
}

/** An alert published by this process and not yet known to be out of the outbox. */
interface SentAlert {
  readonly messageId: string;
}

/**
 * Alerts this process published whose removal from the outbox is not confirmed yet. Kept for the life of the
 * process (warm Lambda invocations, a `run`), so a later cycle of the same process that meets one of them
 * removes it instead of publishing it again, even when the store refused to record the message id as well.
 */
export class PublishedAlerts {
  constructor(
    private readonly sent = new Map<string, SentAlert>(),
    /** The outbox scope these alerts belong to: each rule item numbers its alerts on its own. */
    private readonly scope = '',
  ) {}

  /** The same memory, for the alerts of another outbox scope (a rule item's key). */
  forScope(scope: string): PublishedAlerts {
    return new PublishedAlerts(this.sent, scope);
  }

  note(alert: Pick<AlertRecord, 'seq' | 'at'>, messageId: string): void {
    this.sent.set(this.key(alert), { messageId });
    if (this.sent.size > MAX_REMEMBERED) this.sent.delete(this.sent.keys().next().value!);
  }

  /** The message id this process got for the alert, when it published it and the removal is unconfirmed. */
  messageId(alert: Pick<AlertRecord, 'seq' | 'at'>): string | undefined {
    return this.sent.get(this.key(alert))?.messageId;
  }

  forget(alert: Pick<AlertRecord, 'seq' | 'at'>): void {
    this.sent.delete(this.key(alert));
  }

  get size(): number {
    return this.sent.size;
  }

  // The sequence number alone restarts when a table is recreated; with the time it names one alert.
  private key(alert: Pick<AlertRecord, 'seq' | 'at'>): string {
    return `${this.scope}${alert.seq}@${alert.at}`;
  }
}

/** What sending the outbox needs (a subset of the cycle's dependencies). */
export interface OutboxDeps<S = unknown> {
  readonly state: StateStore<S>;
  readonly publisher: AlertPublisher;
  /** Read just before an alert would be published (the cycle reads them once); none: nothing is silenced. */
  readonly silences?: SilenceStore;
  readonly log: {
    info(message: string, ...extra: Record<string, unknown>[]): void;
    warn(message: string, ...extra: Record<string, unknown>[]): void;
    error(message: string, ...extra: Record<string, unknown>[]): void;
  };
  readonly metrics?: { alertPublished(ok: boolean): void };
  /** Epoch ms. */
  readonly now: () => number;
  /** This process's memory of alerts published but not yet removed; none: nothing is remembered. */
  readonly published?: PublishedAlerts;
}

/** How one cycle sends the outbox. */
export interface DrainOptions {
  readonly cycleId: string;
  readonly monitorName: string;
  readonly apiUrl?: string;
  /** Epoch ms: nothing goes on past it. */
  readonly deadlineMs: number;
  /**
   * A publish is started only with at least this long left before the deadline, so a publish is never
   * cut off by the deadline after a sliver of time (an answer lost that way would send the alert twice).
   */
  readonly publishFloorMs: number;
  /** Each network's latest figures, for the alerts' email text (only asked for when an alert is sent). */
  readonly networks: () => readonly NetworkFigures[];
  /**
   * Waiting alerts kept in the state item before the oldest move to items of their own (a rule item's
   * alerts can be large: see `alertsPerCommit`). @default {@link SPILL_ABOVE}
   */
  readonly spillAbove?: number;
}

/** What sending the outbox did. */
export interface DrainResult {
  readonly delivered: DeliveryOutcome[];
  readonly failed: DeliveryOutcome[];
  /** Alerts a silence suppressed: recorded with its id and removed, never sent (README, Silences). */
  readonly suppressed: DeliveryOutcome[];
  /** Alerts still waiting to be sent after this cycle. */
  readonly pending: number;
}

/**
 * Sends the outbox in sequence order. Each alert is claimed with a conditional write first, so concurrent
 * cycles never both send it; it is recorded as an event before publishing, so history never misses one (and
 * that write tells whether an earlier cycle already published it); and it leaves the outbox only after SNS
 * accepted it, so a failed publish is retried by a later cycle. Sending stops at the first alert that cannot
 * be sent now, to keep the order. Claims this cycle took and did not use are handed back at once.
 */
export async function drainOutbox<S>(
  deps: OutboxDeps<S>,
  loaded: VersionedState<S>,
  queued: readonly AlertRecord[],
  options: DrainOptions,
): Promise<DrainResult> {
  const { cycleId, deadlineMs } = options;
  const delivered: DeliveryOutcome[] = [];
  const failed: DeliveryOutcome[] = [];
  const suppressed: DeliveryOutcome[] = [];
  let entries: OutboxEntry[] = mergeOutbox(loaded.outbox, queued);
  // Alerts this cycle committed are claimed by that same write (also when the write was retried after its
  // answer was lost, so that the alert is not in `queued`).
  const held = new Set([
    ...queued.map((alert) => alert.seq),
    ...entries.filter((e) => e.claimedBy === cycleId).map((e) => e.seq),
  ]);
  entries = await spillIfLarge(deps, entries, held, options.spillAbove ?? SPILL_ABOVE);
  let reloaded = false;
  for (let i = 0; i < entries.length; ) {
    const entry = entries[i]!;
    const now = deps.now();
    if (deadlineMs - now < options.publishFloorMs) break;
    let claimed = held.has(entry.seq);
    try {
      if (!claimed) claimed = await deps.state.claim(entry, cycleId, now, deadlineMs + CLAIM_GRACE_MS);
    } catch (error) {
      deps.log.error('cannot claim alert', { cycleId, seq: entry.seq, error: describeError(error) });
      break;
    }
    if (!claimed) {
      // Sent or held by another cycle since this cycle read the outbox: read it once more and go on.
      if (reloaded) break;
      reloaded = true;
      try {
        entries = mergeOutbox((await deps.state.load()).outbox, []);
      } catch {
        break;
      }
      i = 0;
      if (entries[0]?.claimUntil !== undefined && entries[0].claimUntil > deps.now()) break;
      continue;
    }
    held.add(entry.seq);
    let messageId: string;
    let alreadyPublished = false;
    try {
      const recorded = await deps.state.recordEvent(entry);
      const known = deps.published?.messageId(entry) ?? recorded;
      if (known !== undefined) {
        messageId = known;
        alreadyPublished = true;
        deps.log.warn('alert already published by an earlier cycle: removing it, not sending it again', {
          cycleId,
          seq: entry.seq,
          event: entry.event,
          messageId,
        });
      } else {
        const silence = silenceFor(await silencesOf(deps), entry);
        if (silence !== undefined) {
          await deps.state.markSuppressed(entry, silence.id);
          suppressed.push({ seq: entry.seq, event: entry.event, suppressedBy: silence.id });
          deps.log.info('alert suppressed by a silence: recorded, not sent', {
            cycleId,
            seq: entry.seq,
            event: entry.event,
            silence: silence.id,
          });
          if (!(await removeSent(deps, entry, cycleId, undefined, deadlineMs))) break;
          i++;
          continue;
        }
        const left = deadlineMs - deps.now();
        if (left < options.publishFloorMs) break;
        const rendered = renderAlert(entry, {
          networks: options.networks(),
          monitorName: options.monitorName,
          ...(options.apiUrl === undefined ? {} : { apiUrl: options.apiUrl }),
        });
        // Bounded by the cycle's deadline: an SNS that does not answer must not hold the cycle (or the claim);
        // it ends early enough to hand the claim back before the store's calls are cut off.
        const handBackMs = Math.min(MAX_HAND_BACK_MS, Math.floor(options.publishFloorMs / 2));
        messageId = await deps.publisher.publish(
          rendered,
          AbortSignal.timeout(Math.max(1, Math.floor(left - handBackMs))),
        );
        deps.published?.note(entry, messageId);
        deps.metrics?.alertPublished(true);
        deps.log.info('alert published', {
          cycleId,
          seq: entry.seq,
          event: entry.event,
          messageId,
          target: deps.publisher.target,
        });
      }
      delivered.push({
        seq: entry.seq,
        event: entry.event,
        messageId,
        ...(alreadyPublished ? { alreadyPublished } : {}),
      });
    } catch (error) {
      // Whether SNS refused it or its answer was lost (5xx, reset, time-out), the alert counts as unsent: a
      // later cycle sends it. Lost answers are the one way SNS can deliver an alert twice.
      const message = describeError(error);
      failed.push({ seq: entry.seq, event: entry.event, error: message });
      deps.metrics?.alertPublished(false);
      deps.log.error('alert not published; it stays in the outbox', {
        cycleId,
        seq: entry.seq,
        event: entry.event,
        error: message,
      });
      await deps.state.release(entry, cycleId, message).catch(() => undefined);
      break;
    }
    if (!(await removeSent(deps, entry, cycleId, messageId, deadlineMs))) break;
    i++;
  }
  const done = new Set([...delivered, ...suppressed].map((d) => d.seq));
  // Claims this cycle holds on alerts it did not get to (an earlier one could not be sent, too little time
  // left) are handed back at once, so the next cycle need not wait for them to expire.
  const attempted = new Set([...done, ...failed.map((f) => f.seq)]);
  for (const seq of held) {
    const entry = entries.find((e) => e.seq === seq) ?? { seq };
    if (!attempted.has(seq)) await deps.state.release(entry, cycleId).catch(() => undefined);
  }
  return { delivered, failed, suppressed, pending: entries.filter((e) => !done.has(e.seq)).length };
}

/** The silences, for an alert about to be sent; an error says what could not be read (the alert waits). */
async function silencesOf<S>(deps: OutboxDeps<S>): Promise<readonly Silence[]> {
  try {
    return (await deps.silences?.list()) ?? [];
  } catch (error) {
    throw new Error(`cannot read the silences: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Removes a published alert from the outbox, retrying with backoff (full jitter) until the deadline: a
 * throttled removal must not leave the alert for a later cycle to send again. A removal that fails or is slow
 * (see {@link MARK_AFTER_MS}) has the message id recorded with the alert's event item (another partition than
 * the state item), where the next cycle to claim the alert finds it and only removes it. A suppressed alert
 * (no message id) left in the outbox is suppressed again by the next cycle, by the same silence.
 */
async function removeSent<S>(
  deps: OutboxDeps<S>,
  entry: OutboxEntry,
  cycleId: string,
  messageId: string | undefined,
  deadlineMs: number,
): Promise<boolean> {
  let marking: Promise<void> | undefined;
  const mark = () => {
    if (messageId === undefined) return;
    marking ??= deps.state.markPublished(entry, messageId).catch((error: unknown) => {
      deps.log.warn('cannot record the message id of a published alert', {
        cycleId,
        seq: entry.seq,
        error: describeError(error),
      });
    });
  };
  const slow = setTimeout(mark, MARK_AFTER_MS);
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await deps.state.complete(entry, cycleId);
        deps.published?.forget(entry);
        return true;
      } catch (error) {
        mark();
        const wait = Math.random() * Math.min(REMOVE_BACKOFF_CAP_MS, 50 * 2 ** attempt);
        if (deps.now() + wait >= deadlineMs) {
          const what = messageId === undefined ? 'suppressed' : 'published';
          deps.log.error(`alert ${what} but not removed from the outbox; a later cycle removes it`, {
            cycleId,
            seq: entry.seq,
            messageId,
            attempts: attempt,
            error: describeError(error),
          });
          return false;
        }
        await sleep(wait);
      }
    }
  } finally {
    clearTimeout(slow);
    // Bounded by the deadline like every store call; nothing of the cycle is left running after it.
    await marking;
  }
}

/**
 * During a long SNS outage the outbox grows by every transition; past {@link SPILL_ABOVE} alerts in the state
 * item, the oldest unclaimed ones move to items of their own, so the state item (and every cycle's state
 * write) stays far from DynamoDB's 400 KB item limit. Their order and delivery are unchanged.
 */
async function spillIfLarge<S>(
  deps: OutboxDeps<S>,
  entries: OutboxEntry[],
  own: ReadonlySet<number>,
  spillAbove: number,
): Promise<OutboxEntry[]> {
  const inState = entries.filter((entry) => entry.spilled !== true);
  if (inState.length <= spillAbove) return entries;
  const now = deps.now();
  const movable = inState
    .slice(0, inState.length - Math.min(SPILL_KEEP, Math.floor(spillAbove / 2)))
    .filter((e) => !own.has(e.seq) && (e.claimUntil === undefined || e.claimUntil < now));
  let moved = false;
  try {
    moved = movable.length > 0 && (await deps.state.spill(movable, now));
  } catch (error) {
    deps.log.warn('cannot move waiting alerts out of the state item', { error: describeError(error) });
  }
  if (!moved) return entries;
  deps.log.warn('moved waiting alerts out of the state item', { alerts: movable.length });
  const gone = new Set(movable.map((entry) => entry.seq));
  return entries.map((entry) =>
    gone.has(entry.seq) ? { ...entry, spilled: true, claimedBy: undefined, claimUntil: undefined } : entry,
  );
}

/** The stored outbox with this cycle's new alerts, one entry per alert, in sequence order. */
export function mergeOutbox(outbox: readonly OutboxEntry[], queued: readonly AlertRecord[]): OutboxEntry[] {
  const bySeq = new Map<number, OutboxEntry>();
  for (const entry of [...outbox, ...queued]) if (!bySeq.has(entry.seq)) bySeq.set(entry.seq, entry);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
