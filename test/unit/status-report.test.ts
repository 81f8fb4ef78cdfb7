/**
 * `statusReport` on a sharded monitor's store (issue 22.3): the networks come from the monitor's own record
 * and from every shard's rule items; a rule cell an edit left in two items counts once, the copy judged last.
 */
import { describe, expect, it } from 'vitest';
import { type RuleItemView, statusReport } from '../../cli/commands/status.ts';
import { INITIAL_STATE, type MonitorState } from '../../lambda/core/detect/decide.ts';
import type { RuleCell } from '../../lambda/core/rules/rule-types.ts';
import type { Snapshot } from '../../lambda/core/types.ts';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const RULE = 'flood: traffic.in.pps > 50000';

function item(key: string, lastAt: string, cells: Record<string, Record<string, RuleCell>>): RuleItemView {
  return { key, loaded: { state: { rules: { lastAt, cells }, nextSeq: 1 }, version: 3, outbox: [] } };
}

const open = (since: string, extra: Partial<RuleCell> = {}): RuleCell => ({
  open: true,
  run: 0,
  values: [],
  triggeredAt: since,
  incident: `flood/x/${since}`,
  ...extra,
});

function snapshot(networkId: string, pps: number): Snapshot {
  return {
    target: { kind: 'network', networkId },
    at: '2030-01-01T11:59:00.000Z',
    cycleId: 'c',
    ok: true,
    bodyText: JSON.stringify({ traffic: { in: { pps } } }),
  } as Snapshot;
}

describe('statusReport', () => {
  it("lists the monitor's networks (its record, then other shards' rule items) and each open rule cell once", () => {
    // Prepare: shard 0 polled a and b; shard 1's item judges c; an edit left a's cell in two items.
    const state: MonitorState = {
      ...INITIAL_STATE,
      polled: { at: '2030-01-01T11:59:00.000Z', networks: ['a', 'b'], rules: [RULE] },
    };
    const items = [
      item('rules#0', '2030-01-01T11:59:00.000Z', {
        flood: { a: open('2030-01-01T11:00:00.000Z'), b: { open: false, run: 1, values: [60_000] } },
      }),
      // An older copy of a's cell, left behind: closed there, but judged earlier.
      item('rules#0#1', '2030-01-01T10:00:00.000Z', { flood: { a: { open: false, run: 0, values: [] } } }),
      item('rules#1', '2030-01-01T11:59:30.000Z', {
        flood: {
          c: open('2030-01-01T11:58:00.000Z', {
            held: { event: 'network.rule_triggered', at: '2030-01-01T11:58:00.000Z', values: [70_000] },
          }),
        },
      }),
    ];
    const snapshots = new Map([
      ['a', snapshot('a', 91_000)],
      ['c', snapshot('c', 72_000)],
    ]);

    // Act
    const report = statusReport({
      state,
      outbox: [],
      filter: undefined,
      networks: [],
      expected: undefined,
      nowMs: NOW,
      ruleItems: items,
      lastOf: (id) => snapshots.get(id),
    });

    // Assess
    expect(report.monitor).toEqual({
      lastCycleAt: '2030-01-01T11:59:00.000Z',
      networks: ['a', 'b', 'c'],
      rules: [RULE],
    });
    expect(report.ruleIncidents).toEqual([
      {
        rule: 'flood',
        network: 'a',
        since: '2030-01-01T11:00:00.000Z',
        forMs: 3_600_000,
        incident: 'flood/x/2030-01-01T11:00:00.000Z',
        value: 91_000,
        valueAt: '2030-01-01T11:59:00.000Z',
        held: false,
        item: 'rules#0',
        state: 'open',
        acknowledgedAt: null,
        acknowledged: null,
      },
      expect.objectContaining({ network: 'c', value: 72_000, held: true, item: 'rules#1' }),
    ]);
  });

  it('a cycle of an older version recorded nothing: no networks, no rules, no last cycle claimed', () => {
    // Act
    const report = statusReport({
      state: { ...INITIAL_STATE, lastObservationAt: '2030-01-01T11:59:00.000Z' },
      outbox: [],
      filter: undefined,
      networks: [],
      expected: undefined,
      nowMs: NOW,
    });

    // Assess
    expect(report.monitor).toEqual({ lastCycleAt: null, networks: [], rules: [] });
    expect(report.ruleIncidents).toEqual([]);
    expect(report.silences).toEqual([]);
    expect(report.outboxes).toEqual([]);
  });
});
