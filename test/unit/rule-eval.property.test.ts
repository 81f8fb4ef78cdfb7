import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import type { RuleAlert, RuleReading, RuleState } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';

function at(i: number): string {
  return new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString();
}

const NETWORKS = ['n1', 'n2', 'n3'];

/** A reading: a number around the threshold 100, or none. */
const reading: fc.Arbitrary<RuleReading> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<RuleReading>({ kind: 'none' }) },
  {
    weight: 4,
    arbitrary: fc.integer({ min: 0, max: 200 }).map((value): RuleReading => ({ kind: 'value', value })),
  },
);

/** A cycle: its time index (duplicates and older ones happen) and each observed network's reading. */
const cycle = fc.record({
  time: fc.integer({ min: 0, max: 60 }),
  readings: fc.dictionary(fc.constantFrom(...NETWORKS), reading),
});

function run(text: string, cycles: readonly { time: number; readings: Record<string, RuleReading> }[]) {
  const { rules, problems } = parseRules(text);
  expect(problems).toEqual([]);
  let state: RuleState | undefined;
  const alerts: RuleAlert[] = [];
  for (const { time, readings } of cycles) {
    const result = evaluateRules({
      rules,
      networks: NETWORKS,
      state,
      at: at(time),
      observations: Object.entries(readings).map(([networkId, r]) => ({
        networkId,
        at: at(time),
        readings: Object.fromEntries(rules.map((rule) => [rule.name, r])),
      })),
    });
    state = result.state;
    alerts.push(...result.alerts);
  }
  return alerts;
}

describe('evaluateRules: properties', () => {
  it('noise that never holds N cycles in a row never alerts', () => {
    // Runs of holding readings (> 100) shorter than N, each ended by a failing reading; none readings anywhere.
    const noise = (n: number) =>
      fc
        .array(
          fc.tuple(
            fc.array(fc.oneof(fc.integer({ min: 101, max: 1000 }), fc.constant(-1)), { maxLength: 2 * n }),
            fc.integer({ min: 0, max: 100 }),
          ),
          { maxLength: 20 },
        )
        .map((runs) =>
          runs.flatMap(([run, fail]) => {
            // Keep fewer than n holding readings in the run; -1 marks a none reading.
            let holding = 0;
            const kept = run.filter((v) => v === -1 || ++holding < n);
            return [...kept, fail].map(
              (v): RuleReading => (v === -1 ? { kind: 'none' } : { kind: 'value', value: v }),
            );
          }),
        );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(fc.constant(n), noise(n))),
        ([n, readings]) => {
          const alerts = run(
            `r: pps > 100 for ${n}`,
            readings.map((r, i) => ({ time: i, readings: { n1: r } })),
          );
          expect(alerts).toEqual([]);
        },
      ),
    );
  });

  it('per cell, alerts alternate trigger, resolve, trigger...; a resolve ends the incident its trigger began', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(cycle, { maxLength: 80 }), (n, cycles) => {
        const alerts = run(`r: pps > 100 for ${n}; b: pps > 1.5x baseline for ${n}`, cycles);
        const byCell = new Map<string, RuleAlert[]>();
        for (const alert of alerts) {
          const key = `${alert.rule}/${alert.network}`;
          byCell.set(key, [...(byCell.get(key) ?? []), alert]);
        }
        for (const cellAlerts of byCell.values()) {
          for (const [i, alert] of cellAlerts.entries()) {
            expect(alert.event).toBe(i % 2 === 0 ? 'network.rule_triggered' : 'network.rule_resolved');
            if (i % 2 === 1) expect(alert.incident).toBe(cellAlerts[i - 1]!.incident);
            else expect(cellAlerts.slice(0, i).map((a) => a.incident)).not.toContain(alert.incident);
            expect(alert.values).toHaveLength(n);
          }
        }
        // Every alert's time is newer than the one before in the same cell: a stale cycle never alerts.
        for (const cellAlerts of byCell.values()) {
          for (let i = 1; i < cellAlerts.length; i++) {
            expect(cellAlerts[i]!.at > cellAlerts[i - 1]!.at).toBe(true);
          }
        }
      }),
    );
  });

  it('applying the same cycle twice changes nothing the second time', () => {
    fc.assert(
      fc.property(fc.array(cycle, { minLength: 1, maxLength: 30 }), (cycles) => {
        const once = run('r: pps > 100 for 2', cycles);
        const twice = run(
          'r: pps > 100 for 2',
          cycles.flatMap((c) => [c, c]),
        );
        expect(twice).toEqual(once);
      }),
    );
  });
});
