/**
 * The outbox: alerts committed with the monitor state, sent in order, each once. Claims keep two cycles from
 * sending the same alert; an alert leaves the outbox only after SNS accepted it, or a silence suppressed it;
 * a long SNS outage moves the oldest waiting alerts out of the state item.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { alertAction } from './core/alerts/alert-documents.ts';
import { renderAlert } from './core/alerts/alert-text.ts';
import { fullJitterMs } from './core/backoff.ts';
import {
  afterAlert,
  dueAnnouncements,
  type HeldChanges,
  type HeldVerdict,
  holdsAny,
  mayBeSilenced,
  type Silence,
  silenceFor,
} from './core/silences/silence.ts';
import type { CycleBudget } from './core/time-budget.ts';
import type { AlertRecord, NetworkFigures } from './core/types.ts';
import { describeError } from './errors.ts';
import type { AlertPublisher, OutboxEntry, SilenceStore, StateStore, VersionedState } from './ports.ts';

export { CLAIM_GRACE_MS } from './core/time-budget.ts';
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
/** Writes of what the silences hold back tried before a cycle leaves it to a later one. */
const SETTLE_ATTEMPTS = 3;
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
  readonly metrics?: { alertPublished(ok: boolean, timeToAlertMs?: number): void };
  /** Epoch ms. */
  readonly now: () => number;
  /** This process's memory of alerts published but not yet removed; none: nothing is remembered. */
  readonly published?: PublishedAlerts;
  /**
   * Alerts recorded as events and removed, never published (`groupBy` setting `rule`: the per-network rule
   * alerts, whose incident's alerts are published instead). Silences play no part for them: not published
   * anyway, they hold nothing back for a silence to announce (its incident's alerts do). None: every alert
   * is published.
   */
  readonly recordOnly?: (alert: Pick<AlertRecord, 'event'>) => boolean;
  /**
   * Whether the scope's state has incident `incident` acknowledged now (undefined: it does not say). At a
   * silence's end an acknowledgement held back with the incident is sent after its announcement unless this
   * says false (withdrawn with `unack` inside the silence; docs/silences.md). None: it is sent.
   */
  readonly acknowledged?: (state: S, incident: string) => boolean | undefined;
}

/** How one cycle sends the outbox. */
export interface DrainOptions {
  readonly cycleId: string;
  readonly monitorName: string;
  readonly apiUrl?: string;
  /**
   * The cycle's time budget: nothing goes on past its deadline; a publish starts only with its publish floor
   * left, so it is never cut off by the deadline after a sliver of time (an answer lost that way would send
   * the alert twice), and ends early enough to hand its claim back; claims last until its claimUntil.
   */
  readonly budget: CycleBudget;
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
  /** Alerts a silence suppressed: recorded with its id and removed, never sent (docs/silences.md). */
  readonly suppressed: DeliveryOutcome[];
  /** Alerts recorded as events and removed without a publish ({@link OutboxDeps.recordOnly}). */
  readonly recorded?: DeliveryOutcome[];
  /** Alerts still waiting to be sent after this cycle. */
  readonly pending: number;
}

/**
 * Sends the outbox in sequence order. Each alert is claimed with a conditional write first, so concurrent
 * cycles never both send it; it is recorded as an event before publishing, so history never misses one (and
 * that write tells whether an earlier cycle already published it); and it leaves the outbox only after SNS
 * accepted it, so a failed publish is retried by a later cycle. Sending stops at the first alert that cannot
 * be sent now, to keep the order. Claims this cycle took and did not use are handed back at once.
 *
 * Silences (docs/silences.md): an alert a silence holds back is recorded as suppressed and removed, and what it
 * changed is remembered with the scope's state while it holds ({@link afterAlert}); once the outbox is empty,
 * each such change whose silence has ended is announced once, through this same outbox
 * ({@link announceEnded}).
 */
export async function drainOutbox<S>(
  deps: OutboxDeps<S>,
  loaded: VersionedState<S>,
  queued: readonly AlertRecord[],
  options: DrainOptions,
): Promise<DrainResult> {
  const first = await sendEntries(deps, loaded, queued, options);
  if (!first.emptied || !holdsAny(first.held.changes)) return first.result;
  const announced = await announceEnded(deps, options);
  if (announced === undefined) return first.result;
  const more = await sendEntries(deps, announced.loaded, announced.alerts, options);
  const recorded = [...(first.result.recorded ?? []), ...(more.result.recorded ?? [])];
  return {
    delivered: [...first.result.delivered, ...more.result.delivered],
    failed: [...first.result.failed, ...more.result.failed],
    suppressed: [...first.result.suppressed, ...more.result.suppressed],
    ...(recorded.length === 0 ? {} : { recorded }),
    pending: more.result.pending,
  };
}

/** What the scope's silences hold back, as this cycle last read or wrote it. */
interface HeldView {
  changes: HeldChanges;
  rev: number;
}

/** {@link drainOutbox} without the announcements; `emptied` when every alert left the outbox. */
async function sendEntries<S>(
  deps: OutboxDeps<S>,
  loaded: VersionedState<S>,
  queued: readonly AlertRecord[],
  options: DrainOptions,
): Promise<{ result: DrainResult; held: HeldView; emptied: boolean }> {
  const { cycleId } = options;
  const { deadlineMs, publishFloorMs } = options.budget;
  const delivered: DeliveryOutcome[] = [];
  const failed: DeliveryOutcome[] = [];
  const suppressed: DeliveryOutcome[] = [];
  const recordedOnly: DeliveryOutcome[] = [];
  const held: HeldView = { changes: loaded.held ?? {}, rev: loaded.heldRev ?? 0 };
  let entries: OutboxEntry[] = mergeOutbox(loaded.outbox, queued);
  // Alerts this cycle committed are claimed by that same write (also when the write was retried after its
  // answer was lost, so that the alert is not in `queued`).
  const owned = new Set([
    ...queued.map((alert) => alert.seq),
    ...entries.filter((e) => e.claimedBy === cycleId).map((e) => e.seq),
  ]);
  entries = await spillIfLarge(deps, entries, owned, options.spillAbove ?? SPILL_ABOVE);
  let reloaded = false;
  for (let i = 0; i < entries.length; ) {
    const entry = entries[i]!;
    const now = deps.now();
    if (deadlineMs - now < publishFloorMs) break;
    let claimed = owned.has(entry.seq);
    try {
      if (!claimed) claimed = await deps.state.claim(entry, cycleId, now, options.budget.claimUntilMs);
    } catch (error) {
      deps.log.error('cannot claim alert', { cycleId, seq: entry.seq, error: describeError(error) });
      break;
    }
    if (!claimed) {
      // Sent or held by another cycle since this cycle read the outbox: read it once more and go on.
      if (reloaded) break;
      reloaded = true;
      try {
        const fresh = await deps.state.load();
        entries = mergeOutbox(fresh.outbox, []);
        held.changes = fresh.held ?? {};
        held.rev = fresh.heldRev ?? 0;
      } catch {
        break;
      }
      i = 0;
      if (entries[0]?.claimUntil !== undefined && entries[0].claimUntil > deps.now()) break;
      continue;
    }
    owned.add(entry.seq);
    let messageId: string;
    let alreadyPublished = false;
    // What the silences hold back once this alert is handled (docs/silences.md); same verdict on a retry.
    const closes = alertAction(entry) === 'resolve';
    let silence: Silence | undefined;
    const verdict = () => afterAlert(held.changes, entry, closes, silence);
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
      } else if (deps.recordOnly?.(entry) === true) {
        // Recorded (above) and removed, never published nor counted as published; what the silences hold
        // back stays as it is, but for a change remembered by an earlier version, which this one forgets.
        const settle = settler(deps, entry, cycleId, held, () => {
          const after = afterAlert(held.changes, entry, closes, undefined);
          return after.suppressedBy === undefined ? after : { held: held.changes };
        });
        if (!(await removeSent(deps, entry, cycleId, undefined, deadlineMs, settle))) break;
        recordedOnly.push({ seq: entry.seq, event: entry.event });
        i++;
        continue;
      } else {
        if (mayBeSilenced(entry, closes)) silence = silenceFor(await silencesOf(deps), entry);
        const suppressedBy = verdict().suppressedBy;
        if (suppressedBy !== undefined) {
          await deps.state.markSuppressed(entry, suppressedBy);
          suppressed.push({ seq: entry.seq, event: entry.event, suppressedBy });
          deps.log.info('alert suppressed by a silence: recorded, not sent', {
            cycleId,
            seq: entry.seq,
            event: entry.event,
            silence: suppressedBy,
          });
          if (
            !(await removeSent(
              deps,
              entry,
              cycleId,
              undefined,
              deadlineMs,
              settler(deps, entry, cycleId, held, verdict),
            ))
          )
            break;
          i++;
          continue;
        }
        const left = deadlineMs - deps.now();
        if (left < publishFloorMs) break;
        const rendered = renderAlert(entry, {
          networks: options.networks(),
          monitorName: options.monitorName,
          ...(options.apiUrl === undefined ? {} : { apiUrl: options.apiUrl }),
        });
        // Bounded by the cycle's deadline: an SNS that does not answer must not hold the cycle (or the claim);
        // it ends early enough to hand the claim back before the store's calls are cut off.
        messageId = await deps.publisher.publish(
          rendered,
          AbortSignal.timeout(Math.max(1, Math.floor(left - options.budget.handBackMs))),
        );
        deps.published?.note(entry, messageId);
        deps.metrics?.alertPublished(true, timeToAlert(entry.at, deps.now()));
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
    // A published alert forgets what it tells about (silence stays undefined: it was sent).
    const settle = settler(deps, entry, cycleId, held, () => {
      const after = afterAlert(held.changes, entry, closes, undefined);
      return after.suppressedBy === undefined ? after : { held: held.changes };
    });
    if (!(await removeSent(deps, entry, cycleId, messageId, deadlineMs, settle))) break;
    i++;
  }
  const done = new Set([...delivered, ...suppressed, ...recordedOnly].map((d) => d.seq));
  // Claims this cycle holds on alerts it did not get to (an earlier one could not be sent, too little time
  // left) are handed back at once, so the next cycle need not wait for them to expire.
  const attempted = new Set([...done, ...failed.map((f) => f.seq)]);
  for (const seq of owned) {
    const entry = entries.find((e) => e.seq === seq) ?? { seq };
    if (!attempted.has(seq)) await deps.state.release(entry, cycleId).catch(() => undefined);
  }
  const pending = entries.filter((e) => !done.has(e.seq)).length;
  return {
    result: {
      delivered,
      failed,
      suppressed,
      ...(recordedOnly.length === 0 ? {} : { recorded: recordedOnly }),
      pending,
    },
    held,
    emptied: pending === 0,
  };
}

/**
 * How a handled alert leaves the outbox: a plain removal when what the silences hold back stays as it is,
 * otherwise {@link StateStore.settle}, decided again on what is stored when another cycle wrote it meanwhile.
 */
function settler<S>(
  deps: OutboxDeps<S>,
  entry: OutboxEntry,
  cycleId: string,
  held: HeldView,
  verdict: () => HeldVerdict,
): () => Promise<void> {
  return async () => {
    for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
      const next = verdict().held;
      if (next === held.changes) {
        await deps.state.complete(entry, cycleId);
        return;
      }
      if (await deps.state.settle(entry, cycleId, next, held.rev)) {
        held.changes = next;
        held.rev += 1;
        return;
      }
      const fresh = await deps.state.load();
      held.changes = fresh.held ?? {};
      held.rev = fresh.heldRev ?? 0;
      const mine = fresh.outbox.find((e) => e.seq === entry.seq);
      // Gone, or claimed by another cycle after this one's claim expired: that cycle handles it.
      if (mine === undefined || mine.claimedBy !== cycleId) return;
    }
    throw new Error('what the silences hold back kept changing under this cycle');
  };
}

/**
 * At the end of a drain that emptied the outbox, with changes held back: reads the silences (the cycle's one
 * read) and, when a change's silence has ended and no other holds it, appends its announcement to the outbox
 * together with what is left held back, in one write conditioned on the state's version (so duplicate and
 * concurrent cycles announce once). Undefined when nothing was announced (a failure waits for a later cycle).
 */
async function announceEnded<S>(
  deps: OutboxDeps<S>,
  options: DrainOptions,
): Promise<{ loaded: VersionedState<S>; alerts: AlertRecord[] } | undefined> {
  if (options.budget.deadlineMs - deps.now() < options.budget.publishFloorMs) return undefined;
  try {
    const silences = await silencesOf(deps);
    for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
      const fresh = await deps.state.load();
      // Something waits (committed since): it goes first, the announcement with a later cycle.
      if (fresh.outbox.length > 0) return undefined;
      // A change of a record-only alert remembered by an earlier version is forgotten, not announced: its
      // incident's alerts tell it (the `groupBy` setting at `rule`).
      const stored = fresh.held ?? {};
      const recordOnly = deps.recordOnly;
      const heldNow =
        recordOnly === undefined
          ? stored
          : Object.fromEntries(Object.entries(stored).filter(([, change]) => !recordOnly(change)));
      const acknowledged = deps.acknowledged;
      const due = dueAnnouncements(
        heldNow,
        silences,
        deps.now(),
        acknowledged === undefined ? undefined : (incident) => acknowledged(fresh.state, incident),
      );
      const forgets = Object.keys(heldNow).length !== Object.keys(stored).length;
      if (due.alerts.length === 0 && !forgets) return undefined;
      const alerts = await deps.state.announce(fresh, due.alerts, due.held, {
        claimant: options.cycleId,
        untilMs: options.budget.claimUntilMs,
      });
      if (alerts === undefined) continue;
      for (const alert of alerts) {
        deps.log.info('silence ended while a change it held back still holds: announcing it', {
          cycleId: options.cycleId,
          seq: alert.seq,
          silence: alert.silence,
          heldEvent: alert.heldEvent,
          incident: alert.incident,
        });
      }
      return {
        loaded: { ...fresh, outbox: [], held: due.held, heldRev: (fresh.heldRev ?? 0) + 1 },
        alerts,
      };
    }
  } catch (error) {
    deps.log.warn('cannot announce what ended silences held back; a later cycle does', {
      cycleId: options.cycleId,
      error: describeError(error),
    });
  }
  return undefined;
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
  remove: () => Promise<void> = () => deps.state.complete(entry, cycleId),
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
        await remove();
        deps.published?.forget(entry);
        return true;
      } catch (error) {
        mark();
        const wait = fullJitterMs(attempt, 50, REMOVE_BACKOFF_CAP_MS);
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

/** From the observation an alert is about (`at`: when its cycle asked the API) to `nowMs`, ms; undefined if unknown. */
function timeToAlert(at: unknown, nowMs: number): number | undefined {
  const observed = typeof at === 'string' ? Date.parse(at) : Number.NaN;
  return Number.isFinite(observed) && nowMs >= observed ? nowMs - observed : undefined;
}
