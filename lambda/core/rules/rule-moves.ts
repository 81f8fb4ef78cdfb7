/**
 * Rule cells across rule items after a configuration edit (docs/design/rule-state.md).
 * Editing the rules or the networks can move a network to another rule item of its shard, or leave an item
 * that no rule plans any more; during a deploy, cycles of the old and the new configuration may even run at
 * once, each planning the network into another item. A network's cells are judged by exactly one item at a
 * time, their **holder**:
 * - the item that has them in its `cells` (live), or, while they are on their way, the item a `moved` record
 *   names (pending): a holder is changed only by a conditional write on the holder itself, which turns its
 *   copy into a `moved` record for the new item, one generation newer; only then may the new item take them;
 * - a holder still owing an alert of the network (unsent in its outbox, or held back by a silence) keeps
 *   them: the network's alerts all leave from one outbox, in order;
 * - records are compared by generation, so a stale read of an item never hands the same cells over twice, and
 *   an item keeps the generation of what it handed over (without the cells once the new item holds them).
 * Pure: no clock, no environment.
 */
import { own } from '../own-record.ts';
import { ruleNetworks } from './rule-eval.ts';
import type { MovedCells, Rule, RuleCell, RuleState } from './rule-types.ts';

/** One rule item as the cycle read it: its sort key and its state (undefined: not stored). */
export interface RuleItemState {
  readonly key: string;
  readonly state: RuleState | undefined;
}

/** Which item judges each cell now: item key by rule name, then network id. */
export type CellOwners = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** Where a network's cells are, over the rule items of a shard. */
export type Holding =
  /** No item has them (a network never judged, or one whose cells were dropped): they start closed. */
  | { readonly kind: 'none' }
  /** In the `cells` of item `key`, at generation `gen`. */
  | { readonly kind: 'live'; readonly key: string; readonly gen: number }
  /** Handed to item `key` (at generation `gen`) by item `from`, which keeps them until `key` holds them. */
  | {
      readonly kind: 'pending';
      readonly key: string;
      readonly gen: number;
      readonly from: string;
      readonly asOf: string;
      readonly cells: Readonly<Record<string, RuleCell>>;
    };

/** The item that judges each (rule, network) cell under today's plan; cells outside it are not worth keeping. */
export function cellOwners(
  rules: readonly Rule[],
  plans: ReadonlyArray<{ readonly key: string; readonly networks: readonly string[] }>,
): CellOwners {
  const owners = new Map<string, Map<string, string>>();
  for (const rule of rules) {
    const row = new Map<string, string>();
    for (const plan of plans)
      for (const network of ruleNetworks(rule, plan.networks)) row.set(network, plan.key);
    owners.set(rule.name, row);
  }
  return owners;
}

/** The network's cells in the item's `cells`, by rule (empty: none). */
export function liveCells(state: RuleState | undefined, network: string): Record<string, RuleCell> {
  const found: Array<[string, RuleCell]> = [];
  for (const [rule, row] of Object.entries(state?.cells ?? {})) {
    const cell = own(row, network);
    if (cell !== undefined) found.push([rule, cell]);
  }
  return Object.fromEntries(found);
}

const hasLive = (state: RuleState | undefined, network: string): boolean =>
  Object.values(state?.cells ?? {}).some((row) => own(row, network) !== undefined);

const genOf = (state: RuleState | undefined, network: string): number => own(state?.gens, network) ?? 0;

/** The newest generation an item has of the network (live or handed over); -1 when it has none. */
function newestGen(state: RuleState | undefined, network: string): number {
  const moved = own(state?.moved, network);
  const live = hasLive(state, network) ? genOf(state, network) : -1;
  return Math.max(live, moved?.gen ?? -1);
}

/**
 * Where the network's cells are: the newest generation over the items wins; at one generation a live copy
 * wins over the record that handed it over (the new item has taken it). Only records without cells at the
 * newest generation (their items took the cells and later dropped them: the network's rules were removed
 * there) count as none.
 */
export function holdingOf(network: string, items: readonly RuleItemState[]): Holding {
  let best: Holding = { kind: 'none' };
  let bestGen = -1;
  let bestLive = false;
  for (const item of [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const state = item.state;
    if (hasLive(state, network)) {
      const gen = genOf(state, network);
      // Two live copies of one generation (two configurations that began the network at once): the first key.
      if (gen > bestGen || (gen === bestGen && !bestLive)) {
        best = { kind: 'live', key: item.key, gen };
        bestGen = gen;
        bestLive = true;
      }
    }
    const moved = own(state?.moved, network);
    if (moved !== undefined && (moved.gen > bestGen || (moved.gen === bestGen && best.kind === 'none'))) {
      best =
        moved.cells === undefined
          ? { kind: 'none' }
          : {
              kind: 'pending',
              key: moved.to,
              gen: moved.gen,
              from: item.key,
              asOf: moved.asOf,
              cells: moved.cells,
            };
      bestGen = moved.gen;
      bestLive = false;
    }
  }
  return best;
}

/** What an item judges in one cycle: the state its evaluation starts from, and each judged network's generation. */
export interface StartingState {
  /** Its own `lastAt` (the duplicate check) and the cells of the networks it judges. */
  readonly state: RuleState | undefined;
  /** The networks it judges this cycle: those it holds, takes, or begins. */
  readonly networks: readonly string[];
  /** The generation of each judged network's cells. */
  readonly gens: ReadonlyMap<string, number>;
  /** Networks it plans but cannot judge yet: another item holds them (it is asked to hand them over). */
  readonly waiting: readonly string[];
  /** Networks of which it has a live copy that another item's newer (or first-named) copy outranks: dropped. */
  readonly duplicates: ReadonlySet<string>;
}

/**
 * The state an item's evaluation at `at` starts from, from its own state as last read (`mine`) and the other
 * items as the cycle found them: for each network it plans, its own live cells, cells handed to it that it
 * has not taken yet (and that were judged before `at`), or none when no item has any. A network another item
 * holds is waiting: it is not judged here until that item has handed it over.
 */
export function startingState(
  key: string,
  networks: readonly string[],
  mine: RuleState | undefined,
  others: readonly RuleItemState[],
  at: string,
): StartingState {
  const items = [...others.filter((item) => item.key !== key), { key, state: mine }];
  const judged: string[] = [];
  const waiting: string[] = [];
  const duplicates = new Set<string>();
  const gens = new Map<string, number>();
  const cells = new Map<string, Array<[string, RuleCell]>>();
  const add = (network: string, found: Readonly<Record<string, RuleCell>>) => {
    for (const [rule, cell] of Object.entries(found)) {
      const row = cells.get(rule) ?? [];
      cells.set(rule, row);
      row.push([network, cell]);
    }
  };
  for (const network of networks) {
    const holding = holdingOf(network, items);
    if (hasLive(mine, network) && holding.kind === 'live' && holding.key !== key) {
      // Two live copies (two configurations began the network at once): only one item may go on judging it.
      duplicates.add(network);
      waiting.push(network);
    } else if (hasLive(mine, network)) {
      judged.push(network);
      gens.set(network, genOf(mine, network));
      add(network, liveCells(mine, network));
    } else if (holding.kind === 'none') {
      // Begun again above every generation an item remembers, so no older record outranks it.
      judged.push(network);
      gens.set(network, Math.max(-1, ...items.map((item) => newestGen(item.state, network))) + 1);
    } else if (
      holding.kind === 'pending' &&
      holding.key === key &&
      newestGen(mine, network) < holding.gen &&
      holding.asOf < at
    ) {
      judged.push(network);
      gens.set(network, holding.gen);
      add(network, holding.cells);
    } else {
      waiting.push(network);
    }
  }
  if (mine === undefined && cells.size === 0) {
    return { state: undefined, networks: judged, gens, waiting, duplicates };
  }
  // Object.fromEntries defines own properties: a network or rule named `__proto__` stays a cell.
  const state: RuleState = {
    ...(mine?.lastAt === undefined ? {} : { lastAt: mine.lastAt }),
    cells: Object.fromEntries([...cells].map(([rule, row]) => [rule, Object.fromEntries(row)])),
  };
  return { state, networks: judged, gens, waiting, duplicates };
}

const watched = (owners: CellOwners, network: string): boolean =>
  [...owners.values()].some((row) => row.has(network));

/** True when some item holds the network at generation `gen` or newer: a record of `gen` may drop its cells. */
const heldAtLeast = (network: string, gen: number, items: readonly RuleItemState[]): boolean =>
  items.some((item) => hasLive(item.state, network) && genOf(item.state, network) >= gen) ||
  items.some((item) => (own(item.state?.moved, network)?.gen ?? -1) > gen);

/**
 * An item's state after its cycle: the cells it judged (`judged`, the evaluator's result, and their
 * generations), its other live cells kept as they were (networks it holds but no longer plans: handed over
 * when their new item asks), and its `moved` records, without the cells once the item they went to (or a
 * later one) holds them. Cells and records of rules and networks no item judges any more are dropped.
 */
export function settledState(
  key: string,
  mine: RuleState | undefined,
  judged: RuleState,
  gens: ReadonlyMap<string, number>,
  owners: CellOwners,
  others: readonly RuleItemState[],
  duplicates: ReadonlySet<string> = new Set(),
): RuleState {
  const cells = new Map<string, Array<[string, RuleCell]>>();
  for (const [rule, row] of Object.entries(judged.cells)) cells.set(rule, Object.entries(row));
  const nextGens = new Map<string, number>();
  for (const [network, gen] of gens) if (gen > 0) nextGens.set(network, gen);
  for (const [rule, row] of Object.entries(mine?.cells ?? {})) {
    for (const [network, cell] of Object.entries(row)) {
      if (gens.has(network) || duplicates.has(network) || owners.get(rule)?.get(network) === undefined) {
        continue;
      }
      const kept = cells.get(rule) ?? [];
      cells.set(rule, kept);
      kept.push([network, cell]);
      const gen = genOf(mine, network);
      if (gen > 0) nextGens.set(network, gen);
    }
  }
  const items = others.filter((item) => item.key !== key);
  const moved: Array<[string, MovedCells]> = [];
  for (const [network, record] of Object.entries(mine?.moved ?? {})) {
    // Taken back: the live cells are newer than the record.
    if (gens.has(network) || !watched(owners, network)) continue;
    if (record.cells !== undefined && heldAtLeast(network, record.gen, items)) {
      moved.push([network, { to: record.to, gen: record.gen, asOf: record.asOf }]);
    } else {
      moved.push([network, record]);
    }
  }
  return {
    ...(judged.lastAt === undefined ? {} : { lastAt: judged.lastAt }),
    cells: Object.fromEntries(
      [...cells].filter(([, row]) => row.length > 0).map(([rule, row]) => [rule, Object.fromEntries(row)]),
    ),
    ...(nextGens.size === 0 ? {} : { gens: Object.fromEntries(nextGens) }),
    ...(moved.length === 0 ? {} : { moved: Object.fromEntries(moved) }),
  };
}

/**
 * The holder's state after handing `networks` to item `to`, as the holder `key` was last read (`mine`), or
 * undefined when it hands nothing over: a network is handed over only while `key` still holds it as the cycle
 * found it (`holdings`: its live cells, or cells handed to it that it has not taken) and `owes` says it owes no
 * alert of it. The record names `to` and the next generation; a holder that was only pending records that it
 * handed them on, so it never takes them itself.
 */
export function handOver(
  key: string,
  mine: RuleState | undefined,
  to: string,
  networks: readonly string[],
  holdings: ReadonlyMap<string, Holding>,
  owes: (network: string, cells: Readonly<Record<string, RuleCell>>) => boolean,
): { readonly state: RuleState; readonly handed: readonly string[] } | undefined {
  const cells = new Map(Object.entries(mine?.cells ?? {}).map(([rule, row]) => [rule, { ...row }]));
  const gens = new Map(Object.entries(mine?.gens ?? {}));
  const moved = new Map(Object.entries(mine?.moved ?? {}));
  const handed: string[] = [];
  for (const network of networks) {
    const holding = holdings.get(network);
    if (holding === undefined || holding.kind === 'none' || holding.key !== key) continue;
    let record: MovedCells;
    if (holding.kind === 'live') {
      if (!hasLive(mine, network)) continue;
      const live = liveCells(mine, network);
      if (owes(network, live)) continue;
      record = { to, gen: genOf(mine, network) + 1, asOf: mine?.lastAt ?? '', cells: live };
      for (const row of cells.values()) delete row[network];
      gens.delete(network);
    } else {
      // Pending here: handed on only while this item has not taken them (nor anything newer).
      if (newestGen(mine, network) >= holding.gen || owes(network, holding.cells)) continue;
      record = { to, gen: holding.gen + 1, asOf: holding.asOf, cells: holding.cells };
    }
    moved.set(network, record);
    handed.push(network);
  }
  if (handed.length === 0) return undefined;
  const state: RuleState = {
    ...(mine?.lastAt === undefined ? {} : { lastAt: mine.lastAt }),
    cells: Object.fromEntries(
      [...cells].filter(([, row]) => Object.keys(row).length > 0).map(([rule, row]) => [rule, row]),
    ),
    ...(gens.size === 0 ? {} : { gens: Object.fromEntries(gens) }),
    ...(moved.size === 0 ? {} : { moved: Object.fromEntries(moved) }),
  };
  return { state, handed };
}

/**
 * True when an item no plan names holds nothing worth keeping: none of its live cells is of a rule and network
 * still judged, and each network it handed over with its cells is held by an item at that generation or a
 * newer one. Such an item (its outbox empty) may be deleted.
 */
export function nothingToCarry(
  key: string,
  state: RuleState | undefined,
  owners: CellOwners,
  items: readonly RuleItemState[],
): boolean {
  if (state === undefined) return true;
  for (const [rule, row] of Object.entries(state.cells)) {
    for (const network of Object.keys(row)) if (owners.get(rule)?.get(network) !== undefined) return false;
  }
  const others = items.filter((item) => item.key !== key);
  for (const [network, record] of Object.entries(state.moved ?? {})) {
    if (record.cells !== undefined && watched(owners, network) && !heldAtLeast(network, record.gen, others)) {
      return false;
    }
  }
  return true;
}
