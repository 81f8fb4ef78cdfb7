import { describe, expect, it } from 'vitest';
import { fromStoredAlert, storedAlert } from '../../../lambda/adapters/dynamo-items.ts';
import { decodeRuleScope, encodeRuleScope } from '../../../lambda/adapters/rule-items.ts';
import { renderAlert } from '../../../lambda/core/alerts/alert-text.ts';
import { ruleIncidentId } from '../../../lambda/core/rules/rule-eval.ts';
import {
  conditionOf,
  RULE_KINDS,
  readCondition,
  withConditions,
} from '../../../lambda/core/rules/rule-kinds/index.ts';
import { parseRules } from '../../../lambda/core/rules/rules.ts';
import type { AlertRecord } from '../../../lambda/core/types.ts';

/**
 * A rule item's state text as the encoder wrote it before rule kinds were a registry (commit bade5ba):
 * three rules (threshold, boolean, baseline), open incidents, full and learning windows, held resolves with
 * their own time and baseline. An item stored by that version must read back the same after an upgrade.
 */
const STORED_BEFORE_THE_REGISTRY = `{"s":7,"at":"2026-01-01T00:14:00.000Z","r":["flood","attack","surge"],"n":{"n1":[[1,1,"QI+wAAAAAAA",0,"2026-01-01T00:12:00.000Z"],[1,0,"",0,"2026-01-01T00:11:00.000Z"],[0,0,"","QI9AAAAAAAAQI9IAAAAAAAQI9QAAAAAAAQI9YAAAAAAAQI9gAAAAAAAQI9oAAAAAAAQI9wAAAAAAAQI94AAAAAAAQI+AAAAAAAAQI+IAAAAAAAQI+QAAAAAAAQPX5AAAAAAA"]],"n2":[[1,1,"QJ+wAAAAAAA",0,"2026-01-01T00:12:00.000Z"],[0,0,""],[0,-2,"QI+wAAAAAAA","QI9IAAAAAAAQI9QAAAAAAAQI9YAAAAAAAQI9gAAAAAAAQI9oAAAAAAAQI9wAAAAAAAQI94AAAAAAAQI+AAAAAAAAQI+IAAAAAAAQI+QAAAAAAAQI+YAAAAAAAQPX5EAAAAAA","2026-01-01T00:11:00.000Z",0,"Qnm3bmjuAAA","QI90AAAAAAA"]],"n3":[[1,0,"",0,"2026-01-01T00:12:00.000Z"],[0,0,""],[0,-2,"QI+4AAAAAAA","QI9QAAAAAAAQI9YAAAAAAAQI9gAAAAAAAQI9oAAAAAAAQI9wAAAAAAAQI94AAAAAAAQI+AAAAAAAAQI+IAAAAAAAQI+QAAAAAAAQI+YAAAAAAAQI+gAAAAAAAQPX5IAAAAAA","2026-01-01T00:11:00.000Z",0,"Qnm3bmjuAAA","QI98AAAAAAA"]]}}`;
const DECODED = {
  rules: {
    lastAt: '2026-01-01T00:14:00.000Z',
    cells: {
      flood: {
        n1: {
          open: true,
          run: 1,
          values: [1014],
          triggeredAt: '2026-01-01T00:12:00.000Z',
          incident: 'flood/n1/2026-01-01T00:12:00.000Z',
        },
        n2: {
          open: true,
          run: 1,
          values: [2028],
          triggeredAt: '2026-01-01T00:12:00.000Z',
          incident: 'flood/n2/2026-01-01T00:12:00.000Z',
        },
        n3: {
          open: true,
          run: 0,
          values: [],
          triggeredAt: '2026-01-01T00:12:00.000Z',
          incident: 'flood/n3/2026-01-01T00:12:00.000Z',
        },
      },
      attack: {
        n1: {
          open: true,
          run: 0,
          values: [],
          triggeredAt: '2026-01-01T00:11:00.000Z',
          incident: 'attack/n1/2026-01-01T00:11:00.000Z',
        },
        n2: { open: false, run: 0, values: [] },
        n3: { open: false, run: 0, values: [] },
      },
      surge: {
        n1: {
          open: false,
          run: 0,
          values: [],
          window: [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 90000],
        },
        n2: {
          open: false,
          run: 0,
          values: [],
          window: [1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 90001],
          triggeredAt: '2026-01-01T00:11:00.000Z',
          held: {
            event: 'network.rule_resolved',
            at: '2026-01-01T00:13:00.000Z',
            values: [1014],
            baseline: 1006.5,
          },
          incident: 'surge/n2/2026-01-01T00:11:00.000Z',
        },
        n3: {
          open: false,
          run: 0,
          values: [],
          window: [1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 90002],
          triggeredAt: '2026-01-01T00:11:00.000Z',
          held: {
            event: 'network.rule_resolved',
            at: '2026-01-01T00:13:00.000Z',
            values: [1015],
            baseline: 1007.5,
          },
          incident: 'surge/n3/2026-01-01T00:11:00.000Z',
        },
      },
    },
  },
  nextSeq: 7,
};

const AT = '2026-11-22T10:04:05.000Z';

describe('the rule kinds registry (rule-kinds/index.ts)', () => {
  it.each(Object.entries(RULE_KINDS))('lists the kind %s under its own name', (name, kind) => {
    expect(kind.name).toBe(name);
  });

  it('a rule item stored before the registry decodes as it did, and encodes back to the same text', () => {
    // Act
    const scope = decodeRuleScope(STORED_BEFORE_THE_REGISTRY);
    // Assess
    expect(JSON.parse(JSON.stringify(scope))).toEqual(DECODED);
    expect(encodeRuleScope(scope)).toBe(STORED_BEFORE_THE_REGISTRY);
  });

  it('the incident id is one function: the codec stores none it can rebuild, and rebuilds it', () => {
    const scope = decodeRuleScope(STORED_BEFORE_THE_REGISTRY);
    const cell = scope.rules.cells['surge']!['n2']!;
    expect(cell.incident).toBe(ruleIncidentId('surge', 'n2', cell.triggeredAt!));
    expect(ruleIncidentId('r', 'n1', AT)).toBe(`r/n1/${AT}`);
  });
});

describe('rule alerts carry their parsed condition (the texts never parse the rule text)', () => {
  const rules = parseRules('pps: traffic.in_pps > 50k for 3; surge: traffic.in_pps > 3x baseline').rules;

  it('withConditions gives each alert its rule condition, by rule name', () => {
    const alerts = withConditions(rules, [{ rule: 'surge' }, { rule: 'pps' }, { rule: 'gone' }]);
    expect(alerts).toEqual([
      {
        rule: 'surge',
        condition: { path: 'traffic.in_pps', op: '>', threshold: { kind: 'baseline', factor: 3 } },
      },
      {
        rule: 'pps',
        condition: { path: 'traffic.in_pps', op: '>', threshold: { kind: 'number', value: 50000 } },
      },
      { rule: 'gone' },
    ]);
  });

  it('the texts come from the condition, not from the rule as written', () => {
    // Prepare: a rule text that says something else (it is shown as written, never read).
    const alert: AlertRecord = {
      seq: 1,
      event: 'network.rule_triggered',
      at: AT,
      rule: 'surge',
      network: 'n1',
      value: 90000,
      threshold: 36000,
      baseline: 12000,
      ruleText: 'surge: other.path == true',
      values: [90000],
      incident: `surge/n1/${AT}`,
      triggeredAt: AT,
      condition: conditionOf(rules[1]!),
    };
    // Act
    const rendered = renderAlert(alert, { networks: [] });
    // Assess
    expect(rendered.subject).toContain('(traffic.in_pps 90000 > 3x baseline 12000)');
    expect(rendered.email).toContain('3 x baseline = 36000');
    expect(rendered.email).toContain('surge: other.path == true');
    expect(rendered.subject).not.toContain('other.path');
  });

  it.each([
    ['a threshold beyond DynamoDB numbers', 'big: a.b > 1e200', { kind: 'number', value: 1e200 }],
    ['a baseline factor', 'surge: a.b <= 0.5x baseline', { kind: 'baseline', factor: 0.5 }],
    ['a boolean', 'flag: a.b != false', { kind: 'boolean', value: false }],
  ])('the condition is stored with the alert and read back: %s', (_name, text, threshold) => {
    const rule = parseRules(text).rules[0]!;
    const alert: AlertRecord = {
      seq: 3,
      event: 'network.rule_resolved',
      at: AT,
      rule: rule.name,
      network: 'n1',
      value: 1,
      threshold: 2,
      ruleText: rule.text,
      values: [1],
      incident: `x/n1/${AT}`,
      condition: conditionOf(rule),
    };
    const item = storedAlert(alert);
    expect(Object.keys(item)).not.toContain('condition');
    expect(fromStoredAlert(item)).toEqual({ ...alert, condition: { path: 'a.b', op: rule.op, threshold } });
  });

  it('a record stored before conditions were carried keeps its numbers text, and reads back without one', () => {
    const item = { seq: 1, rule: 'r', ruleValues: '{"value":9,"threshold":5,"values":[9]}' };
    expect(storedAlert(fromStoredAlert(item) as unknown as AlertRecord)).toEqual(item);
  });

  it.each([
    ['not an object', 'x'],
    ['an unknown operator', { path: 'a', op: '=>', threshold: { kind: 'number', value: 1 } }],
    ['an unknown kind', { path: 'a', op: '>', threshold: { kind: 'rate', value: 1 } }],
    ['an inherited kind name', { path: 'a', op: '>', threshold: { kind: 'toString', value: 1 } }],
    ['a malformed threshold', { path: 'a', op: '>', threshold: { kind: 'baseline', factor: -1 } }],
    ['no path', { op: '>', threshold: { kind: 'number', value: 1 } }],
  ])('a damaged stored condition is left out: %s', (_name, stored) => {
    expect(readCondition(stored)).toBeUndefined();
  });
});
