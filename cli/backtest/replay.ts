/**
 * `shieldwatch backtest` (docs/rules.md, Tuning a rule with backtest): stored network snapshots put back together
 * into cycles and replayed through the same pure `readRules` and `evaluateRules` the Lambda runs.
 * Pure: no store, no clock, no environment; the command feeds it snapshots oldest first.
 */
import { evaluateRules, ruleNetworks } from '../../lambda/core/rules/rule-eval.ts';
import { ruleKind } from '../../lambda/core/rules/rule-kinds/index.ts';
import type {
  Rule,
  RuleAlert,
  RuleCell,
  RuleNetworkObservation,
  RuleReading,
} from '../../lambda/core/rules/rule-types.ts';
import { readRules } from '../../lambda/core/rules/rules.ts';

/** One stored network snapshot as the replay needs it: its cycle, its time and each rule's reading. */
export interface ReplayObservation extends RuleNetworkObservation {
  readonly cycleId: string;
}

/** One cycle put back together from its snapshots. */
export interface ReplayCycle {
  readonly cycleId: string;
  /** The cycle's time: its earliest snapshot (every request of a cycle is stamped as the cycle starts). */
  readonly at: string;
  readonly observations: readonly ReplayObservation[];
}

/**
 * How far apart the snapshots of one cycle may be. A cycle stamps each request as it starts it, so its
 * snapshots lie milliseconds to seconds apart; a snapshot with the same cycle id further than this from the
 * cycle's first snapshot is another cycle, and a snapshot this much later than a cycle's first closes it.
 */
export const CYCLE_SPAN_MS = 60_000;

/**
 * Each rule's reading of one stored snapshot: a failed snapshot, one whose body was not stored (too large)
 * or is not JSON is no evidence for any rule, as in the Lambda.
 */
export function snapshotReadings(
  rules: readonly Rule[],
  snapshot: { readonly ok: boolean; readonly bodyText?: string },
): Record<string, RuleReading> {
  let body: unknown;
  let readable = snapshot.ok && snapshot.bodyText !== undefined;
  if (readable) {
    try {
      body = JSON.parse(snapshot.bodyText!);
    } catch {
      readable = false;
    }
  }
  return readable
    ? readRules(rules, body)
    : Object.fromEntries(rules.map((rule): [string, RuleReading] => [rule.name, { kind: 'none' }]));
}

/**
 * Groups snapshots, given oldest first (by time, then cycle id), into cycles by cycle id and time. A snapshot
 * joins the newest open cycle with its cycle id when it lies within {@link CYCLE_SPAN_MS} of that cycle's
 * first snapshot and the cycle has no snapshot of its network yet; otherwise it begins a new cycle. A cycle
 * observes each network once, so a second snapshot of a network is always another cycle, even under the same
 * id (an id reused, or none stored: such snapshots are grouped by time alone). A cycle is handed out once a
 * snapshot {@link CYCLE_SPAN_MS} later than its first arrives (or at {@link end}), so only the cycles of the
 * last minute are held; cycles come out in the order of their time.
 */
export class CycleGrouper {
  /** Open cycles in the order they began, by a key of their own (several may share a cycle id). */
  private readonly open = new Map<
    number,
    { cycleId: string; at: string; atMs: number; networks: Set<string>; observations: ReplayObservation[] }
  >();
  /** The newest open cycle of each cycle id. */
  private readonly newest = new Map<string, number>();
  private nextKey = 0;

  /** Adds one snapshot; returns the cycles it closed, oldest first. */
  push(observation: ReplayObservation): ReplayCycle[] {
    const atMs = Date.parse(observation.at);
    const closed = this.closeBefore(atMs - CYCLE_SPAN_MS);
    const key = this.newest.get(observation.cycleId);
    const group = key === undefined ? undefined : this.open.get(key);
    if (
      group !== undefined &&
      !group.networks.has(observation.networkId) &&
      Math.abs(atMs - group.atMs) <= CYCLE_SPAN_MS
    ) {
      group.networks.add(observation.networkId);
      group.observations.push(observation);
    } else {
      const fresh = this.nextKey++;
      this.open.set(fresh, {
        cycleId: observation.cycleId,
        at: observation.at,
        atMs,
        networks: new Set([observation.networkId]),
        observations: [observation],
      });
      this.newest.set(observation.cycleId, fresh);
    }
    return closed;
  }

  /** The cycles still open, oldest first. */
  end(): ReplayCycle[] {
    return this.closeBefore(Number.POSITIVE_INFINITY);
  }

  /** Closes the cycles whose first snapshot is before `limitMs`; a Map keeps them in the order they opened. */
  private closeBefore(limitMs: number): ReplayCycle[] {
    const closed: ReplayCycle[] = [];
    for (const [key, group] of this.open) {
      if (!(group.atMs < limitMs)) break;
      closed.push({ cycleId: group.cycleId, at: group.at, observations: group.observations });
      this.open.delete(key);
      if (this.newest.get(group.cycleId) === key) this.newest.delete(group.cycleId);
    }
    return closed;
  }
}

/** What the replay saw of one rule on one network. */
export interface ReplayCount {
  readonly rule: string;
  readonly network: string;
  /** Cycles in which the network was observed with a readable value for the rule. */
  readonly readings: number;
  /** Smallest and largest numeric value read (number and baseline rules). */
  readonly min?: number;
  readonly max?: number;
  readonly triggered: number;
  readonly resolved: number;
  /** At the end of the replay: triggered and not resolved, or a baseline rule still learning. */
  readonly end: 'open' | 'closed' | 'learning';
}

interface Tally {
  readings: number;
  min?: number;
  max?: number;
  triggered: number;
  resolved: number;
}

/**
 * Replays cycles through {@link evaluateRules}, one evaluation per cycle, as the Lambda does. Each cycle is
 * evaluated on the networks it observed (the others are no evidence either way), so a long history of many
 * networks costs only what was stored. A network observed again in a cycle no newer than the last one
 * applied to it (a duplicate cycle) is no evidence, as the Lambda's stale check makes it.
 */
export class RuleReplay {
  private readonly cells = new Map<string, Map<string, RuleCell>>();
  private readonly lastAt = new Map<string, string>();
  private readonly tallies = new Map<string, Map<string, Tally>>();
  /** The networks each rule watches, in the order given. */
  private readonly watched: ReadonlyMap<string, readonly string[]>;
  /** Cycles applied, and the first and last cycle time. */
  cycles = 0;
  firstAt: string | undefined;
  lastCycleAt: string | undefined;

  constructor(
    private readonly rules: readonly Rule[],
    /** Every network the rules watch: the configured ones and the rules' `on` networks. */
    private readonly networks: readonly string[],
  ) {
    this.watched = new Map(rules.map((rule) => [rule.name, ruleNetworks(rule, networks)]));
  }

  /** Applies one cycle; returns the alerts it would have sent, in rule order then network order. */
  apply(cycle: ReplayCycle): RuleAlert[] {
    const fresh = new Map<string, ReplayObservation>();
    for (const observation of cycle.observations) {
      const last = this.lastAt.get(observation.networkId);
      if (last !== undefined && last >= cycle.at) continue;
      if (!fresh.has(observation.networkId)) fresh.set(observation.networkId, observation);
    }
    if (fresh.size === 0) return [];
    this.cycles++;
    this.firstAt ??= cycle.at;
    this.lastCycleAt = cycle.at;
    for (const network of fresh.keys()) this.lastAt.set(network, cycle.at);
    const networks = this.networks.filter((network) => fresh.has(network));
    const cells: Record<string, Record<string, RuleCell>> = {};
    for (const rule of this.rules) {
      const ruleCells = this.cells.get(rule.name);
      cells[rule.name] = Object.fromEntries(
        networks.flatMap((network) => {
          const cell = ruleCells?.get(network);
          return cell === undefined ? [] : [[network, cell]];
        }),
      );
    }
    const result = evaluateRules({
      rules: this.rules,
      networks,
      state: { cells },
      at: cycle.at,
      observations: [...fresh.values()],
    });
    for (const [rule, ruleCells] of Object.entries(result.state.cells)) {
      const kept = this.cells.get(rule) ?? new Map<string, RuleCell>();
      this.cells.set(rule, kept);
      for (const [network, cell] of Object.entries(ruleCells)) kept.set(network, cell);
    }
    this.tally(fresh, result.alerts);
    return result.alerts;
  }

  private tally(fresh: ReadonlyMap<string, ReplayObservation>, alerts: readonly RuleAlert[]): void {
    for (const rule of this.rules) {
      for (const network of this.watched.get(rule.name) ?? []) {
        const reading = fresh.get(network)?.readings[rule.name];
        if (reading?.kind !== 'value') continue;
        const tally = this.tallyOf(rule.name, network);
        tally.readings++;
        if (typeof reading.value === 'number') {
          tally.min = Math.min(tally.min ?? reading.value, reading.value);
          tally.max = Math.max(tally.max ?? reading.value, reading.value);
        }
      }
    }
    for (const alert of alerts) {
      const tally = this.tallyOf(alert.rule, alert.network);
      if (alert.event === 'network.rule_triggered') tally.triggered++;
      else tally.resolved++;
    }
  }

  private tallyOf(rule: string, network: string): Tally {
    const byNetwork = this.tallies.get(rule) ?? new Map<string, Tally>();
    this.tallies.set(rule, byNetwork);
    const tally = byNetwork.get(network) ?? { readings: 0, triggered: 0, resolved: 0 };
    byNetwork.set(network, tally);
    return tally;
  }

  /** One count per rule and watched network, in rule order then network order. */
  counts(): ReplayCount[] {
    return this.rules.flatMap((rule) =>
      (this.watched.get(rule.name) ?? []).map((network): ReplayCount => {
        const tally = this.tallies.get(rule.name)?.get(network) ?? { readings: 0, triggered: 0, resolved: 0 };
        const cell = this.cells.get(rule.name)?.get(network);
        // Learning: the rule's kind cannot yet say what a reading is compared with (a baseline filling up).
        const learning = ruleKind(rule).compare(rule.threshold, cell?.window) === undefined;
        return {
          rule: rule.name,
          network,
          readings: tally.readings,
          ...(tally.min === undefined ? {} : { min: tally.min }),
          ...(tally.max === undefined ? {} : { max: tally.max }),
          triggered: tally.triggered,
          resolved: tally.resolved,
          end: cell?.open === true ? 'open' : learning ? 'learning' : 'closed',
        };
      }),
    );
  }
}

/** Streams whose first item is read at the same time when a merge starts. */
const FIRST_PULLS = 16;

/**
 * Merges streams that are each sorted oldest first (by time, then cycle id) into one, oldest first,
 * holding one item of each stream at a time (a binary heap keyed on time, cycle id, stream index).
 */
export async function* mergeOldestFirst<T extends { readonly at: string; readonly cycleId: string }>(
  streams: readonly AsyncIterable<T>[],
): AsyncGenerator<T> {
  const iterators = streams.map((stream) => stream[Symbol.asyncIterator]());
  const heap: { item: T; source: number }[] = [];
  const before = (a: { item: T; source: number }, b: { item: T; source: number }): boolean =>
    a.item.at !== b.item.at
      ? a.item.at < b.item.at
      : a.item.cycleId !== b.item.cycleId
        ? a.item.cycleId < b.item.cycleId
        : a.source < b.source;
  const add = (entry: { item: T; source: number }): void => {
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const takeFirst = (): { item: T; source: number } => {
    const first = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return first;
  };
  const pull = async (source: number): Promise<void> => {
    const next = await iterators[source]!.next();
    if (next.done !== true) add({ item: next.value, source });
  };
  try {
    // The first item of every stream, a few streams at a time (each is a store read).
    for (let source = 0; source < iterators.length; source += FIRST_PULLS) {
      const batch = iterators.slice(source, source + FIRST_PULLS).map((_, i) => pull(source + i));
      await Promise.all(batch);
    }
    while (heap.length > 0) {
      const { item, source } = takeFirst();
      yield item;
      await pull(source);
    }
  } finally {
    await Promise.all(iterators.map((iterator) => iterator.return?.()));
  }
}
