/**
 * How a network's figures are drawn (docs/report.md): one chart per unit (packet rates apart from bit
 * rates), each rule's threshold as a line on the chart of the figure it reads, the last value of each figure,
 * and a value range that starts at zero, so a figure that moves by a few percent looks like it. Pure.
 */
import type { Rule, RuleOp } from '../core/rules/rule-types.ts';
import { printThreshold } from '../core/rules/rules.ts';
import type { FigureUnit } from './units.ts';

/** A rule's threshold drawn across a chart. */
export interface ChartThreshold {
  readonly rule: string;
  readonly path: string;
  readonly op: RuleOp;
  readonly value: number;
  /** e.g. `flood: traffic.in.pps > 500k`. */
  readonly label: string;
}

/** One chart of a network: the figures of one unit. */
export interface ChartPanel {
  /** `pps`, `bps`, ..., or `''` for figures whose name says no unit. */
  readonly unit: FigureUnit;
  /** Indexes of the figures drawn (into the network's fields). */
  readonly series: number[];
  readonly thresholds: ChartThreshold[];
  /** The value axis, lowest to highest. */
  readonly range: readonly [number, number];
  /** Each drawn figure's last value in the window (null: none), in {@link series} order. */
  readonly last: Array<number | null>;
  /** What is not drawn and why (a baseline rule's moving threshold). */
  readonly notes: string[];
}

/** Head room above the highest value (and below the lowest negative one), as a share of the range. */
export const RANGE_PADDING = 0.08;

/**
 * The value axis for `values` and the `lines` that must show: from zero (or the lowest negative value) to the
 * highest value or line, with {@link RANGE_PADDING} of head room. Rates start at zero, so a figure that moves
 * by 12% takes about 12% of the chart's height, not all of it; a flat or empty figure gets `[0, 1]`.
 */
export function yRange(
  values: Iterable<number | null>,
  lines: readonly number[] = [],
): readonly [number, number] {
  let lo = 0;
  let hi = 0;
  const see = (v: number | null) => {
    if (v === null || !Number.isFinite(v)) return;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  for (const v of values) see(v);
  for (const v of lines) see(v);
  if (hi === lo) return [lo, lo + 1];
  const pad = (hi - lo) * RANGE_PADDING;
  return [lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : 0];
}

/** Whether a rule watches a network: its `on` list names it, or it has none. */
export function ruleApplies(rule: Rule, network: string): boolean {
  return rule.networks === undefined || rule.networks.includes(network);
}

/**
 * The charts of one network: its figures grouped by unit in the order they first appear (a figure that never
 * has a value is left out), each with the number thresholds of the rules that watch this network and read one
 * of its figures. A baseline rule's threshold moves with the traffic and is not drawn: a note says so.
 */
export function chartPanels(
  network: string,
  fields: readonly string[],
  ys: ReadonlyArray<ReadonlyArray<number | null>>,
  unitOf: (path: string) => FigureUnit,
  rules: readonly Rule[],
): ChartPanel[] {
  const byUnit = new Map<FigureUnit, number[]>();
  fields.forEach((field, i) => {
    if (!(ys[i] ?? []).some((v) => v !== null)) return;
    const unit = unitOf(field);
    byUnit.set(unit, [...(byUnit.get(unit) ?? []), i]);
  });
  return [...byUnit].map(([unit, series]) => {
    const paths = new Set(series.map((i) => fields[i]!));
    const thresholds: ChartThreshold[] = [];
    const notes: string[] = [];
    for (const rule of rules) {
      if (!ruleApplies(rule, network) || !paths.has(rule.path)) continue;
      if (rule.threshold.kind === 'number') {
        thresholds.push({
          rule: rule.name,
          path: rule.path,
          op: rule.op,
          value: rule.threshold.value,
          label: `${rule.name}: ${rule.path} ${rule.op} ${printThreshold(rule.threshold)}`,
        });
      } else if (rule.threshold.kind === 'baseline') {
        notes.push(
          `rule ${rule.name} (${rule.path} ${rule.op} ${printThreshold(rule.threshold)}): its threshold follows the traffic's median and is not drawn; the rule alerts below give it at each alert`,
        );
      }
    }
    const last = series.map((i) => {
      const y = ys[i] ?? [];
      for (let r = y.length - 1; r >= 0; r--) if (y[r] !== null) return y[r]!;
      return null;
    });
    const values = series.flatMap((i) => ys[i] ?? []);
    return {
      unit,
      series,
      thresholds,
      range: yRange(
        values,
        thresholds.map((t) => t.value),
      ),
      last,
      notes,
    };
  });
}
