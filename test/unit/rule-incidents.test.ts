/**
 * A rule's incident on one network (`groupBy=none`; CONTRACT §13-14, docs/acknowledge.md): its timers live with
 * its rule cell and are followed by the one `followTimers` (reminders, escalation once per stage, neither while
 * acknowledged, the pull-back of times a clock ahead wrote); acknowledged and withdrawn in the rule item; kept by
 * the rule item codec, which still reads a cell written without timers (opened at its trigger, stage 1) and
 * one acknowledged by the previous release, which kept when, not who or the note.
 */
import { describe, expect, it } from 'vitest';
import { decodeRuleScope, encodeRuleScope, ruleStateBytes } from '../../lambda/adapters/rule-items.ts';
import {
  acknowledgeRuleIncident,
  unacknowledgeRuleIncident,
} from '../../lambda/core/incidents/incident-ack.ts';
import {
  CELL_ACK_BUDGET_BYTES,
  cellTimers,
  followRuleIncidents,
  type RuleIncidentSettings,
  ruleIncidentOf,
  ruleStateAckBytes,
} from '../../lambda/core/incidents/rule-incidents.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import type { RuleCell, RuleState } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';

const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const minute = (n: number) => new Date(T0 + n * 60_000).toISOString();
const [flood] = parseRules('flood: traffic.in.pps > 500k').rules;
const ID = `flood/edge-1/${minute(0)}`;

/** A cell open since minute 0, as a cycle writes it once its trigger went out (no timers yet). */
const openCell = (extra: Partial<RuleCell> = {}): RuleCell => ({
  open: true,
  run: 0,
  values: [],
  triggeredAt: minute(0),
  incident: ID,
  ...extra,
});
const stateOf = (cell: RuleCell): RuleState => ({ lastAt: minute(0), cells: { flood: { 'edge-1': cell } } });

/** Replays minutes `from`..`to` of cycles over the cell, acknowledging and withdrawing at the minutes given. */
function replay(
  settings: RuleIncidentSettings,
  to: number,
  options: { start?: RuleCell; from?: number; ack?: number; unack?: number } = {},
): string[] {
  let scope = { rules: stateOf(options.start ?? openCell()), nextSeq: 1 };
  const seen: string[] = [];
  for (let m = options.from ?? 1; m <= to; m++) {
    if (m === options.ack) {
      const acked = acknowledgeRuleIncident(scope, ID, { by: 'alice', at: minute(m) });
      if (acked.outcome === 'acknowledged') scope = acked.state;
      seen.push(`${m} ${acked.outcome}`);
    }
    if (m === options.unack) {
      const withdrawn = unacknowledgeRuleIncident(scope, ID);
      if (withdrawn.outcome === 'unacknowledged') scope = withdrawn.state;
      seen.push(`${m} ${withdrawn.outcome}`);
    }
    const followed = followRuleIncidents({
      rules: [flood!],
      state: scope.rules,
      at: minute(m),
      settings,
      room: 10,
    });
    // Stored and read back every cycle, as the rule item is.
    scope = decodeRuleScope(encodeRuleScope({ ...scope, rules: followed.state }));
    for (const alert of followed.alerts) seen.push(`${m} ${alert.event}@${alert.stage}`);
  }
  return seen;
}

describe('the timers of a rule incident on one network', () => {
  it.each<[string, RuleIncidentSettings, number, Parameters<typeof replay>[2], string[]]>([
    ['no settings: nothing', {}, 60, {}, []],
    [
      'remindEvery=10m: every 10 minutes from the trigger',
      { remindEveryMs: 600_000 },
      30,
      {},
      ['10 incident.reminder@1', '20 incident.reminder@1', '30 incident.reminder@1'],
    ],
    [
      'escalateAfter=10m,30m: once per stage, whatever the cycles in between',
      { escalateAfterMs: [600_000, 1_800_000] },
      60,
      {},
      ['10 incident.escalated@2', '30 incident.escalated@3'],
    ],
    [
      'both: the reminder first, at the stage before the escalation',
      { remindEveryMs: 600_000, escalateAfterMs: [600_000] },
      20,
      {},
      ['10 incident.reminder@1', '10 incident.escalated@2', '20 incident.reminder@2'],
    ],
    [
      'acknowledged at 5: neither reminds nor escalates',
      { remindEveryMs: 600_000, escalateAfterMs: [600_000] },
      40,
      { ack: 5 },
      ['5 acknowledged'],
    ],
    [
      'acknowledged at 5, withdrawn at 25: the escalation whose age passed is due at once, reminders resume',
      { remindEveryMs: 600_000, escalateAfterMs: [600_000] },
      36,
      { ack: 5, unack: 25 },
      [
        '5 acknowledged',
        '25 unacknowledged',
        '25 incident.reminder@1',
        '25 incident.escalated@2',
        '35 incident.reminder@2',
      ],
    ],
    [
      'a cell stored by the current release (no timers): opened at its trigger, stage 1',
      { remindEveryMs: 600_000, escalateAfterMs: [1_200_000] },
      21,
      { from: 19 },
      ['19 incident.reminder@1', '20 incident.escalated@2'],
    ],
    [
      'opened by a clock 3 h ahead: pulled back to the cycle, its ages count from there',
      { remindEveryMs: 600_000, escalateAfterMs: [1_200_000] },
      21,
      { start: openCell({ timers: { openedAt: minute(180), stage: 1 } }) },
      ['11 incident.reminder@1', '21 incident.reminder@1', '21 incident.escalated@2'],
    ],
  ])('%s', (_name, settings, to, options, expected) => {
    expect(replay(settings, to, options)).toEqual(expected);
  });

  it('a follow-up that does not fit the room is left due for the next cycle, its timers as they were', () => {
    // Prepare
    const state = stateOf(openCell());

    // Act
    const full = followRuleIncidents({
      rules: [flood!],
      state,
      at: minute(10),
      settings: { remindEveryMs: 600_000 },
      room: 0,
    });
    const next = followRuleIncidents({
      rules: [flood!],
      state: full.state,
      at: minute(11),
      settings: { remindEveryMs: 600_000 },
      room: 1,
    });

    // Assess
    expect(full).toMatchObject({ alerts: [], deferred: 1 });
    expect(full.state).toBe(state);
    expect(next.alerts.map((a) => [a.event, a.at])).toEqual([['incident.reminder', minute(11)]]);
  });

  it('follows only the cells `follows` accepts (groupBy=rule: the rule incident follows its members); the others keep their timers', () => {
    // Prepare: edge-1 and edge-2 open since minute 0.
    const state: RuleState = {
      lastAt: minute(0),
      cells: {
        flood: { 'edge-1': openCell(), 'edge-2': openCell({ incident: `flood/edge-2/${minute(0)}` }) },
      },
    };
    const asked: string[] = [];

    // Act
    const followed = followRuleIncidents({
      rules: [flood!],
      state,
      at: minute(10),
      settings: { remindEveryMs: 600_000 },
      room: 5,
      follows: (rule, network, cell) => {
        asked.push(`${rule} ${network} ${cell.incident}`);
        return network === 'edge-2';
      },
    });

    // Assess
    expect(asked).toEqual([`flood edge-1 ${ID}`, `flood edge-2 flood/edge-2/${minute(0)}`]);
    expect(followed.alerts.map((a) => [a.event, a.network])).toEqual([['incident.reminder', 'edge-2']]);
    expect(followed.state.cells['flood']!['edge-1']).toBe(state.cells['flood']!['edge-1']);
    expect(followed.state.cells['flood']!['edge-2']!.timers?.lastRemindAt).toBe(minute(10));
  });

  it.each<[string, RuleCell]>([
    ['a closed cell', { open: false, run: 0, values: [] }],
    [
      'a trigger the alert cap holds back',
      openCell({ held: { event: 'network.rule_triggered', at: minute(0), values: [9e5] } }),
    ],
  ])('%s has no timers: nothing to remind of', (_name, cell) => {
    expect(cellTimers(cell)).toBeUndefined();
    expect(
      followRuleIncidents({
        rules: [flood!],
        state: stateOf(cell),
        at: minute(60),
        settings: { remindEveryMs: 60_000 },
        room: 5,
      }).alerts,
    ).toEqual([]);
  });

  it('a resolve carries the stage its incident reached; the cell forgets its timers', () => {
    // Prepare: open and escalated to stage 2.
    const state = stateOf(openCell({ timers: { openedAt: minute(0), stage: 2, lastRemindAt: minute(20) } }));

    // Act
    const resolved = evaluateRules({
      rules: [flood!],
      networks: ['edge-1'],
      state,
      at: minute(30),
      observations: [
        { networkId: 'edge-1', at: minute(30), readings: { flood: { kind: 'value', value: 100 } } },
      ],
    });

    // Assess
    expect(resolved.alerts).toMatchObject([{ event: 'network.rule_resolved', incident: ID, stage: 2 }]);
    expect(resolved.state.cells['flood']!['edge-1']).toEqual({ open: false, run: 0, values: [] });
  });
});

describe('acknowledging a rule incident on one network', () => {
  it('acknowledges once, queues incident.acknowledged with who and the note, and keeps them in the cell', () => {
    // Prepare
    const scope = { rules: stateOf(openCell({ timers: { openedAt: minute(0), stage: 2 } })), nextSeq: 7 };

    // Act
    const first = acknowledgeRuleIncident(scope, ID, { by: 'alice', at: minute(5), note: 'on it' });
    const stored = first.outcome === 'acknowledged' ? decodeRuleScope(encodeRuleScope(first.state)) : scope;
    const again = acknowledgeRuleIncident(stored, ID, { by: 'bob', at: minute(6) });

    // Assess
    expect(first).toMatchObject({
      outcome: 'acknowledged',
      alert: {
        event: 'incident.acknowledged',
        seq: 7,
        incident: ID,
        rule: 'flood',
        network: 'edge-1',
        stage: 2,
        openedAt: minute(0),
        acknowledgedBy: 'alice',
        detail: 'on it',
      },
      view: { id: ID, rule: 'flood', stage: 2, acknowledged: { by: 'alice', at: minute(5) } },
    });
    expect(stored.nextSeq).toBe(8);
    // The cell keeps who, when and the note, as the alert says them (CONTRACT §15, one view).
    expect(stored.rules.cells['flood']!['edge-1']!.timers?.acknowledged).toEqual({
      by: 'alice',
      at: minute(5),
      note: 'on it',
    });
    expect(again).toMatchObject({
      outcome: 'already',
      view: { acknowledged: { by: 'alice', at: minute(5), note: 'on it' } },
    });
  });

  it('keeps who and the note cleaned and bounded, as every kind does, and forgets them when withdrawn', () => {
    // Prepare
    const scope = { rules: stateOf(openCell()), nextSeq: 1 };
    const by = `ops\u0000${'b'.repeat(400)}`;

    // Act
    const acked = acknowledgeRuleIncident(scope, ID, { by, at: minute(5), note: `x\n${'n'.repeat(600)}` });
    const stored = acked.outcome === 'acknowledged' ? decodeRuleScope(encodeRuleScope(acked.state)) : scope;
    const withdrawn = unacknowledgeRuleIncident(stored, ID);

    // Assess
    const kept = stored.rules.cells['flood']!['edge-1']!.timers?.acknowledged;
    expect(kept?.by).toBe(`ops ${'b'.repeat(296)}`);
    expect(kept?.note).toBe(`x ${'n'.repeat(498)}`);
    expect(withdrawn.outcome).toBe('unacknowledged');
    if (withdrawn.outcome !== 'unacknowledged') return;
    const after = decodeRuleScope(encodeRuleScope(withdrawn.state)).rules.cells['flood']!['edge-1']!;
    expect(after.timers?.acknowledged).toBeUndefined();
  });

  it("past the item's budget for who and the notes, a cell keeps when only; the alert still says who", () => {
    // Prepare: 62 cells acknowledged by alice with a note of 500 characters, 511 bytes each, fill the budget.
    const networks = Array.from({ length: 63 }, (_, i) => `edge-${i}`);
    const cells = Object.fromEntries(
      networks.map((network) => [network, openCell({ incident: `flood/${network}/${minute(0)}` })]),
    );
    let scope = { rules: { lastAt: minute(0), cells: { flood: cells } } as RuleState, nextSeq: 1 };
    for (const network of networks.slice(0, 62)) {
      const acked = acknowledgeRuleIncident(scope, `flood/${network}/${minute(0)}`, {
        by: 'alice',
        at: minute(1),
        note: 'n'.repeat(500),
      });
      if (acked.outcome === 'acknowledged') scope = acked.state;
    }
    expect(ruleStateAckBytes(scope.rules)).toBe(62 * 511);
    expect(62 * 511 + 511).toBeGreaterThan(CELL_ACK_BUDGET_BYTES);

    // Act
    const last = acknowledgeRuleIncident(scope, `flood/edge-62/${minute(0)}`, {
      by: 'bob',
      at: minute(2),
      note: 'n'.repeat(500),
    });

    // Assess
    expect(last).toMatchObject({ outcome: 'acknowledged', alert: { acknowledgedBy: 'bob' } });
    if (last.outcome !== 'acknowledged') return;
    const text = encodeRuleScope(last.state);
    const back = decodeRuleScope(text).rules.cells['flood']!;
    expect(back['edge-61']!.timers?.acknowledged).toEqual({
      by: 'alice',
      at: minute(1),
      note: 'n'.repeat(500),
    });
    expect(back['edge-62']!.timers?.acknowledged).toEqual({ by: '', at: minute(2) });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(
      ruleStateBytes([flood!], networks) + CELL_ACK_BUDGET_BYTES,
    );
  });

  it.each<[string, string, RuleState]>([
    ['an id of another shape', 'flood@2026-05-01T10:00:00.000Z', stateOf(openCell())],
    ['a closed cell', ID, stateOf({ open: false, run: 0, values: [] })],
    [
      'a newer incident of the same cell',
      ID,
      stateOf(openCell({ triggeredAt: minute(50), incident: `flood/edge-1/${minute(50)}` })),
    ],
    ['an unknown network', `flood/edge-9/${minute(0)}`, stateOf(openCell())],
  ])('refuses %s: not open', (_name, id, rules) => {
    expect(acknowledgeRuleIncident({ rules, nextSeq: 1 }, id, { by: 'a', at: minute(1) })).toEqual({
      outcome: 'not-open',
    });
    expect(unacknowledgeRuleIncident({ rules, nextSeq: 1 }, id)).toEqual({ outcome: 'not-open' });
  });

  it('finds a cell on its way to another rule item, and acknowledges it there', () => {
    // Prepare
    const rules: RuleState = {
      cells: { flood: {} },
      moved: { 'edge-1': { to: 'rules#1', gen: 1, asOf: minute(0), cells: { flood: openCell() } } },
    };

    // Act
    const acked = acknowledgeRuleIncident({ rules, nextSeq: 1 }, ID, { by: 'a', at: minute(1) });

    // Assess
    expect(acked.outcome).toBe('acknowledged');
    if (acked.outcome !== 'acknowledged') return;
    expect(acked.state.rules.moved?.['edge-1']?.cells?.['flood']?.timers?.acknowledged?.at).toBe(minute(1));
  });
});

describe('rule incident ids', () => {
  it.each<[string, ReturnType<typeof ruleIncidentOf>]>([
    [ID, { rule: 'flood', network: 'edge-1', triggeredAt: minute(0) }],
    [`flood/a/b/${minute(0)}`, { rule: 'flood', network: 'a/b', triggeredAt: minute(0) }],
    ['flood@2026-05-01T10:00:00.000Z', undefined],
    [`network.unreachable/0/${minute(0)}`, undefined],
    [`api.unreachable/${minute(0)}`, undefined],
    ['flood/edge-1/yesterday', undefined],
    [`flood//${minute(0)}`, undefined],
  ])('%s', (id, expected) => {
    expect(ruleIncidentOf(id)).toEqual(expected);
  });
});

describe('the rule item codec keeps the timers', () => {
  it.each<[string, RuleCell]>([
    [
      'acknowledged: who and the note',
      openCell({
        timers: {
          openedAt: minute(0),
          stage: 2,
          acknowledged: { by: 'alice', at: minute(4), note: 'on it' },
        },
      }),
    ],
    [
      'acknowledged: who, no note',
      openCell({ timers: { openedAt: minute(0), stage: 1, acknowledged: { by: 'bob', at: minute(4) } } }),
    ],
    ['none (the current release)', openCell()],
    [
      'a stage and a reminder',
      openCell({ timers: { openedAt: minute(0), stage: 3, lastRemindAt: minute(95) } }),
    ],
    [
      'acknowledged, opened by a clock ahead (before its trigger time)',
      openCell({
        triggeredAt: minute(180),
        incident: `flood/edge-1/${minute(180)}`,
        timers: {
          openedAt: minute(2),
          stage: 11,
          lastRemindAt: minute(3),
          acknowledged: { by: '', at: minute(4) },
        },
      }),
    ],
  ])('%s', (_name, cell) => {
    // Act
    const scope = { rules: stateOf(cell), nextSeq: 3 };
    const text = encodeRuleScope(scope);

    // Assess
    expect(decodeRuleScope(text)).toEqual(scope);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(
      ruleStateBytes([flood!], ['edge-1']) + ruleStateAckBytes(scope.rules),
    );
  });

  it('reads an acknowledged cell as the previous release wrote it: when, not who (the views take who from its event)', () => {
    // Prepare: stage 2, acknowledged 4 minutes after the trigger (offset "5bgo" ms in base 36), no who slot.
    const text = JSON.stringify({
      s: 4,
      at: minute(5),
      r: ['flood'],
      n: { 'edge-1': [[1, 0, '', 0, minute(0), 0, `2..${(4 * 60_000).toString(36)}`]] },
    });

    // Act
    const cell = decodeRuleScope(text).rules.cells['flood']!['edge-1']!;

    // Assess
    expect(cell.timers).toEqual({ openedAt: minute(0), stage: 2, acknowledged: { by: '', at: minute(4) } });
    // The previous release reads this release's cell alike: its slots after the timers are a held one's only.
    const now = encodeRuleScope({
      rules: stateOf(openCell({ timers: { ...cell.timers!, acknowledged: { by: 'alice', at: minute(4) } } })),
      nextSeq: 4,
    });
    expect(JSON.parse(now).n['edge-1'][0]).toEqual([
      1,
      0,
      '',
      0,
      minute(0),
      0,
      `2..${(4 * 60_000).toString(36)}`,
      'alice',
    ]);
  });

  it('reads a cell as the current release writes it: no timers, opened at its trigger, stage 1', () => {
    // Prepare: the text today's code writes for a cell open since minute 0.
    const text = JSON.stringify({
      s: 4,
      at: minute(1),
      r: ['flood'],
      n: { 'edge-1': [[1, 0, '', 0, minute(0)]] },
    });

    // Act
    const cell = decodeRuleScope(text).rules.cells['flood']!['edge-1']!;

    // Assess
    expect(cell).toEqual(openCell());
    expect(cellTimers(cell)).toEqual({ openedAt: minute(0), stage: 1 });
  });

  it('keeps the stage of a resolve the alert cap holds back', () => {
    const cell: RuleCell = {
      open: false,
      run: 0,
      values: [],
      triggeredAt: minute(0),
      incident: ID,
      held: { event: 'network.rule_resolved', at: minute(40), values: [1], stage: 3 },
    };
    expect(decodeRuleScope(encodeRuleScope({ rules: stateOf(cell), nextSeq: 1 })).rules).toEqual(
      stateOf(cell),
    );
  });
});
