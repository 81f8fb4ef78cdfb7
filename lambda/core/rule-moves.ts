/**
 * Rule cells across rule items after a configuration edit (docs/design/rule-state.md).
 * Editing the rules or the networks can move a network to another rule item of its shard, or leave an item
 * that no rule plans any more. A cell is carried to the item that now judges it, so that an attack spanning the
 * edit keeps one incident: the item takes the newest copy of the cell it finds in any item of the shard, and
 * the item that gave it keeps it ("leaving") until the new one holds it, so that no failed write loses it.
 * Pure: no clock, no environment.
 */
import { own } from './own-record.ts';
import { ruleNetworks } from './rule-eval.ts';
import type { LeavingCell, Rule, RuleCell, RuleState } from './rule-types.ts';

/** One rule item as the cycle read it: its sort key and its state (undefined: not stored). */
export interface RuleItemState {
  readonly key: string;
  readonly state: RuleState | undefined;
}

/** Which item judges each cell now: item key by rule name, then network id. */
export type CellOwners = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** One copy of a cell found in an item, and when it was judged last. */
interface Copy {
  readonly rule: string;
  readonly network: string;
  readonly cell: RuleCell;
  readonly asOf: string;
  readonly key: string;
  /** True for a cell the item judges (not one it keeps while it leaves). */
  readonly judged: boolean;
}

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

function copiesOf(item: RuleItemState): Copy[] {
  const copies: Copy[] = [];
  const state = item.state;
  if (state === undefined) return copies;
  for (const [rule, row] of Object.entries(state.cells)) {
    for (const [network, cell] of Object.entries(row)) {
      copies.push({ rule, network, cell, asOf: state.lastAt ?? '', key: item.key, judged: true });
    }
  }
  for (const [rule, row] of Object.entries(state.leaving ?? {})) {
    for (const [network, { cell, asOf }] of Object.entries(row)) {
      copies.push({ rule, network, cell, asOf, key: item.key, judged: false });
    }
  }
  return copies;
}

/**
 * The newest copy of each cell over every item of the shard (`judged` copies are as new as their item's last
 * cycle, leaving ones as their `asOf`); on a tie the copy its owner judges wins.
 */
function newestCopies(items: readonly RuleItemState[], owners: CellOwners): Map<string, Map<string, Copy>> {
  const best = new Map<string, Map<string, Copy>>();
  for (const item of items) {
    for (const copy of copiesOf(item)) {
      const row = best.get(copy.rule) ?? new Map<string, Copy>();
      best.set(copy.rule, row);
      const current = row.get(copy.network);
      const ownerKey = owners.get(copy.rule)?.get(copy.network);
      const preferred = (c: Copy) => c.judged && c.key === ownerKey;
      if (
        current === undefined ||
        copy.asOf > current.asOf ||
        (copy.asOf === current.asOf && preferred(copy) && !preferred(current))
      ) {
        row.set(copy.network, copy);
      }
    }
  }
  return best;
}

/**
 * The state an item's evaluation starts from: its own `lastAt` (the duplicate check), and for each network it
 * judges the newest copy of each cell in the shard, its own or one carried from another item. Undefined when
 * the item is new and finds nothing to carry (a first cycle).
 */
export function startingState(
  key: string,
  networks: readonly string[],
  items: readonly RuleItemState[],
  owners: CellOwners,
): RuleState | undefined {
  const mine = items.find((item) => item.key === key)?.state;
  const best = newestCopies(items, owners);
  const mineHere = new Set(networks);
  const cells: Array<[string, Record<string, RuleCell>]> = [];
  for (const [rule, row] of best) {
    const entries: Array<[string, RuleCell]> = [];
    for (const [network, copy] of row) if (mineHere.has(network)) entries.push([network, copy.cell]);
    if (entries.length > 0) cells.push([rule, Object.fromEntries(entries)]);
  }
  if (mine === undefined && cells.length === 0) return undefined;
  // Object.fromEntries defines own properties: a network or rule named `__proto__` stays a cell.
  return { ...(mine?.lastAt === undefined ? {} : { lastAt: mine.lastAt }), cells: Object.fromEntries(cells) };
}

/** True when the cell's owner holds a copy judged at `asOf` or later (it has taken the cell over). */
function ownerHolds(
  rule: string,
  network: string,
  asOf: string,
  owners: CellOwners,
  items: readonly RuleItemState[],
): boolean {
  const ownerKey = owners.get(rule)?.get(network);
  const owner = items.find((item) => item.key === ownerKey)?.state;
  return (
    owner !== undefined && own(own(owner.cells, rule), network) !== undefined && (owner.lastAt ?? '') >= asOf
  );
}

/**
 * The cells an item keeps for other items after its write: those of its last state (judged or already
 * leaving) that another item now judges and does not hold yet. Cells no item judges any more (a rule or a
 * network removed) are dropped.
 */
export function leavingCells(
  key: string,
  mine: RuleState | undefined,
  owners: CellOwners,
  items: readonly RuleItemState[],
): RuleState['leaving'] {
  if (mine === undefined) return undefined;
  const kept = new Map<string, Map<string, LeavingCell>>();
  const keep = (rule: string, network: string, cell: RuleCell, asOf: string) => {
    const ownerKey = owners.get(rule)?.get(network);
    if (ownerKey === undefined || ownerKey === key || ownerHolds(rule, network, asOf, owners, items)) return;
    const row = kept.get(rule) ?? new Map<string, LeavingCell>();
    row.set(network, { cell, asOf });
    kept.set(rule, row);
  };
  for (const [rule, row] of Object.entries(mine.cells)) {
    for (const [network, cell] of Object.entries(row)) keep(rule, network, cell, mine.lastAt ?? '');
  }
  for (const [rule, row] of Object.entries(mine.leaving ?? {})) {
    for (const [network, { cell, asOf }] of Object.entries(row)) keep(rule, network, cell, asOf);
  }
  if (kept.size === 0) return undefined;
  return Object.fromEntries([...kept].map(([rule, row]) => [rule, Object.fromEntries(row)]));
}

/**
 * True when an item no plan names holds no cell worth keeping: each of its cells is of a rule or network no
 * longer judged, or its owner holds a copy at least as new. Such an item (its outbox empty) may be deleted.
 */
export function nothingToCarry(
  state: RuleState | undefined,
  owners: CellOwners,
  items: readonly RuleItemState[],
): boolean {
  if (state === undefined) return true;
  const settled = (rule: string, network: string, asOf: string) =>
    owners.get(rule)?.get(network) === undefined || ownerHolds(rule, network, asOf, owners, items);
  for (const [rule, row] of Object.entries(state.cells)) {
    for (const network of Object.keys(row)) if (!settled(rule, network, state.lastAt ?? '')) return false;
  }
  for (const [rule, row] of Object.entries(state.leaving ?? {})) {
    for (const [network, { asOf }] of Object.entries(row)) if (!settled(rule, network, asOf)) return false;
  }
  return true;
}
