import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rule, RuleOp } from '../../lambda/core/rules/rule-types.ts';
import {
  holds,
  MAX_RULES,
  MAX_RULES_LENGTH,
  parseRules,
  printRule,
  readRules,
  ruleNetworkProblems,
} from '../../lambda/core/rules/rules.ts';

describe('parseRules: well-formed rules', () => {
  it.each([
    {
      text: 'pps: traffic.in_pps > 50000',
      rule: {
        name: 'pps',
        path: 'traffic.in_pps',
        op: '>',
        threshold: { kind: 'number', value: 50000 },
        forCycles: 1,
      },
    },
    {
      text: 'big: traffic.in_bps >= 1.5e6',
      rule: {
        name: 'big',
        path: 'traffic.in_bps',
        op: '>=',
        threshold: { kind: 'number', value: 1.5e6 },
        forCycles: 1,
      },
    },
    {
      text: 'k: a.b < 2k',
      rule: { name: 'k', path: 'a.b', op: '<', threshold: { kind: 'number', value: 2000 }, forCycles: 1 },
    },
    {
      text: 'm: a <= 1.5M for 3',
      rule: { name: 'm', path: 'a', op: '<=', threshold: { kind: 'number', value: 1.5e6 }, forCycles: 3 },
    },
    {
      text: 'g: links.0.bps > 2G',
      rule: {
        name: 'g',
        path: 'links.0.bps',
        op: '>',
        threshold: { kind: 'number', value: 2e9 },
        forCycles: 1,
      },
    },
    {
      text: 'neg: delta < -5',
      rule: { name: 'neg', path: 'delta', op: '<', threshold: { kind: 'number', value: -5 }, forCycles: 1 },
    },
    {
      text: 'attack: attack.active == true on net-1,net-2',
      rule: {
        name: 'attack',
        path: 'attack.active',
        op: '==',
        threshold: { kind: 'boolean', value: true },
        forCycles: 1,
        networks: ['net-1', 'net-2'],
      },
    },
    {
      text: 'up: link.up != false for 2 on a, b',
      rule: {
        name: 'up',
        path: 'link.up',
        op: '!=',
        threshold: { kind: 'boolean', value: false },
        forCycles: 2,
        networks: ['a', 'b'],
      },
    },
    {
      text: 'surge: traffic.in_pps > 3x baseline for 2',
      rule: {
        name: 'surge',
        path: 'traffic.in_pps',
        op: '>',
        threshold: { kind: 'baseline', factor: 3 },
        forCycles: 2,
      },
    },
    {
      text: 'dip_1: traffic.in_pps < 0.5 x baseline',
      rule: {
        name: 'dip_1',
        path: 'traffic.in_pps',
        op: '<',
        threshold: { kind: 'baseline', factor: 0.5 },
        forCycles: 1,
      },
    },
    {
      text: '  spaced :   x.y>10   for   100  ',
      rule: {
        name: 'spaced',
        path: 'x.y',
        op: '>',
        threshold: { kind: 'number', value: 10 },
        forCycles: 100,
      },
    },
  ])('$text', ({ text, rule }) => {
    const parsed = parseRules(text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.rules).toEqual([{ ...rule, text: text.trim() }]);
  });

  it('reads several rules on lines and after ";", ignoring blank lines', () => {
    const parsed = parseRules('a: x > 1;b: y == true\n\n  \nc: z < 2x baseline ;\n');
    expect(parsed.problems).toEqual([]);
    expect(parsed.rules.map((rule) => rule.name)).toEqual(['a', 'b', 'c']);
  });

  it('empty text is no rules', () => {
    expect(parseRules('')).toEqual({ rules: [], problems: [] });
    expect(parseRules(' ;\n ; ')).toEqual({ rules: [], problems: [] });
  });
});

describe('parseRules: problems', () => {
  it.each([
    ['no colon', 'pps traffic > 5', 'rule 1: expected NAME: PATH OP VALUE'],
    ['empty name', ': traffic > 5', 'rule 1: the name before ":" is empty'],
    ['bad name', 'p p s: traffic > 5', 'rule 1: the name "p p s" must be 1 to 40'],
    ['long name', `${'n'.repeat(41)}: a > 1`, 'rule 1: the name'],
    ['no operator', 'pps: traffic 5', 'rule "pps": expected PATH OP VALUE'],
    ['=> is no operator', 'pps: traffic => 5', 'rule "pps": expected PATH OP VALUE after the name'],
    ['empty path', 'pps: > 5', 'rule "pps": the path before the operator is empty'],
    ['empty segment', 'pps: a..b > 5', 'rule "pps": the path "a..b" has an empty segment'],
    ['leading dot', 'pps: .a > 5', 'has an empty segment'],
    [
      'hidden character in path',
      'pps: a\u200bb > 5',
      'rule "pps": the path has a control or invisible character',
    ],
    ['missing value', 'pps: a >', 'rule "pps": the value after the operator is missing'],
    ['not a number', 'pps: a > lots', 'rule "pps": the value "lots" is not a number'],
    ['unknown suffix', 'pps: a > 5T', 'rule "pps": the value "5T" is not a number'],
    ['lower-case m is no suffix', 'pps: a > 5m', 'the value "5m" is not a number'],
    ['overflow', 'pps: a > 1e400', 'the value "1e400" is not a number'],
    ['boolean with >', 'flag: a > true', 'rule "flag": true and false are compared with == or !=, not >'],
    ['baseline with ==', 'b: a == 3x baseline', 'rule "b": a baseline is compared with > >= < or <=, not =='],
    ['zero factor', 'b: a > 0x baseline', 'rule "b": the baseline factor must be a positive number'],
    ['negative factor', 'b: a > -2x baseline', 'the baseline factor must be a positive number'],
    ['for 0', 'p: a > 1 for 0', 'rule "p": "for" takes a whole number of cycles from 1 to 100, got "0"'],
    ['for 101', 'p: a > 1 for 101', '"for" takes a whole number of cycles from 1 to 100, got "101"'],
    ['for 1.5', 'p: a > 1 for 1.5', 'got "1.5"'],
    [
      'garbage after the value',
      'p: a > 1 fro 3',
      'rule "p": expected VALUE [for N] [on ID,...] after the operator',
    ],
    ['empty on id', 'p: a > 1 on a,,b', 'rule "p": network 2 after "on" is invalid: empty'],
    ['dots-only on id', 'p: a > 1 on ..', 'network 1 after "on" is invalid: only dots'],
    [
      'control character in on id',
      'p: a > 1 on a\u0007b',
      'network 1 after "on" is invalid: a control or invisible character',
    ],
    ['repeated on id', 'p: a > 1 on a,b,a', 'rule "p": "on" lists "a" more than once'],
    ['repeated name', 'p: a > 1\np: b > 2', 'rule "p": the name is used by an earlier rule'],
  ])('%s', (_name, text, problem) => {
    const parsed = parseRules(text);
    expect(parsed.problems.join('\n')).toContain(problem);
    // A rule with a problem is left out; only the first of two rules sharing a name stays.
    expect(parsed.rules).toHaveLength(text.includes('\n') ? 1 : 0);
  });

  it('reports every problem at once, each naming its rule, and keeps the good rules out of the way', () => {
    const parsed = parseRules('ok: a > 1; bad one: b > 2; pps: c > x; flag: d > true for 0; ok: e < 1');
    expect(parsed.problems).toEqual([
      expect.stringMatching(/^rule 2: the name "bad one"/),
      expect.stringMatching(/^rule "pps": the value "x" is not a number/),
      expect.stringMatching(/^rule "flag": true and false are compared with == or !=/),
      expect.stringMatching(/^rule "flag": "for" takes a whole number/),
      'rule "ok": the name is used by an earlier rule',
    ]);
    expect(parsed.rules.map((rule) => rule.name)).toEqual(['ok']);
  });

  it(`refuses more than ${MAX_RULES} rules and more than ${MAX_RULES_LENGTH} characters`, () => {
    const many = Array.from({ length: MAX_RULES + 1 }, (_, i) => `r${i}: a > ${i}`).join(';');
    expect(parseRules(many).problems).toEqual([
      `has ${MAX_RULES + 1} rules, more than ${MAX_RULES}: keep the ones that matter`,
    ]);
    const exactly = Array.from({ length: MAX_RULES }, (_, i) => `r${i}: a > ${i}`).join(';');
    expect(parseRules(exactly).problems).toEqual([]);
    const long = `r: ${'a'.repeat(50)} > 1 on ${Array.from({ length: 200 }, (_, i) => `network-${i}`).join(',')}`;
    expect(parseRules(long).problems[0]).toMatch(/^is \d+ characters, more than 2000/);
  });

  it('quotes no hidden characters in its problems', () => {
    const parsed = parseRules('na\u202eme: a > 1');
    expect(parsed.problems).toEqual([
      expect.stringContaining('rule 1: the name (text with hidden characters)'),
    ]);
  });
});

describe('ruleNetworkProblems', () => {
  it('names each rule whose "on" lists a network that is not configured', () => {
    const { rules } = parseRules('a: x > 1 on n1,n9; b: y > 1 on n2; c: z > 1');
    expect(ruleNetworkProblems(rules, ['n1', 'n2'])).toEqual([
      'rule "a": "on" names "n9", not among the configured networks',
    ]);
    expect(ruleNetworkProblems(rules, ['n1', 'n2', 'n9'])).toEqual([]);
  });
});

describe('holds', () => {
  it.each<[RuleOp, number | boolean, number | boolean, boolean]>([
    ['>', 2, 1, true],
    ['>', 1, 1, false],
    ['>=', 1, 1, true],
    ['<', 0, 1, true],
    ['<', 1, 1, false],
    ['<=', 1, 1, true],
    ['==', true, true, true],
    ['==', false, true, false],
    ['!=', false, true, true],
    ['!=', 3, 3, false],
  ])('%s: %s vs %s is %s', (op, value, threshold, expected) => {
    expect(holds(op, value, threshold)).toBe(expected);
  });
});

describe('readRules', () => {
  const { rules } = parseRules('n: a.b > 1; f: a.flag == true; s: links.1.pps > 2x baseline; m: missing > 1');
  it.each([
    {
      name: 'numbers and booleans of the right type',
      body: { a: { b: 5, flag: false }, links: [{ pps: 1 }, { pps: 7 }] },
      readings: {
        n: { kind: 'value', value: 5 },
        f: { kind: 'value', value: false },
        s: { kind: 'value', value: 7 },
        m: { kind: 'none' },
      },
    },
    {
      name: 'wrong types, null and non-finite are none',
      body: { a: { b: '5', flag: 1 }, links: [{ pps: 1 }, { pps: null }] },
      readings: { n: { kind: 'none' }, f: { kind: 'none' }, s: { kind: 'none' }, m: { kind: 'none' } },
    },
    {
      name: 'a body that is no object',
      body: 'oops',
      readings: { n: { kind: 'none' }, f: { kind: 'none' }, s: { kind: 'none' }, m: { kind: 'none' } },
    },
    {
      name: 'inherited properties are not read',
      body: Object.create({ a: { b: 9 } }),
      readings: { n: { kind: 'none' }, f: { kind: 'none' }, s: { kind: 'none' }, m: { kind: 'none' } },
    },
  ])('$name', ({ body, readings }) => {
    expect(readRules(rules, body)).toEqual(readings);
  });

  it('a body whose lookup throws is no evidence', () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw new Error('trap');
        },
      },
    );
    expect(readRules(rules, hostile).n).toEqual({ kind: 'none' });
  });
});

const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/);
const ruleArbitrary: fc.Arbitrary<Rule> = fc
  .record({
    name: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
    path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('.')),
    threshold: fc.oneof(
      fc.record({
        kind: fc.constant('number' as const),
        value: fc.double({ noNaN: true, noDefaultInfinity: true }),
      }),
      fc.record({ kind: fc.constant('boolean' as const), value: fc.boolean() }),
      fc.record({
        kind: fc.constant('baseline' as const),
        factor: fc.double({ min: Number.MIN_VALUE, max: 1e6, noNaN: true }),
      }),
    ),
    orderingOp: fc.constantFrom<RuleOp>('>', '>=', '<', '<='),
    anyOp: fc.constantFrom<RuleOp>('>', '>=', '<', '<=', '==', '!='),
    equalityOp: fc.constantFrom<RuleOp>('==', '!='),
    forCycles: fc.integer({ min: 1, max: 100 }),
    networks: fc.option(
      fc.uniqueArray(
        fc.stringMatching(/^[A-Za-z0-9_.:-]{1,12}$/).filter((id) => !/^\.+$/.test(id)),
        { minLength: 1, maxLength: 4 },
      ),
      { nil: undefined },
    ),
  })
  .map(({ name, path, threshold, orderingOp, anyOp, equalityOp, forCycles, networks }) => {
    const op = threshold.kind === 'baseline' ? orderingOp : threshold.kind === 'boolean' ? equalityOp : anyOp;
    const value =
      threshold.kind === 'number' && threshold.value === 0 ? { ...threshold, value: 0 } : threshold;
    const rule = {
      name,
      path,
      op,
      threshold: value,
      forCycles,
      ...(networks === undefined ? {} : { networks }),
    };
    return { ...rule, text: printRule({ ...rule, text: '' }) };
  });

describe('parseRules: properties', () => {
  it('parses what printRule prints back to the same rule', () => {
    fc.assert(
      fc.property(ruleArbitrary, (rule) => {
        const parsed = parseRules(printRule(rule));
        expect(parsed.problems).toEqual([]);
        expect(parsed.rules).toEqual([rule]);
      }),
    );
  });

  it('never throws and names a rule or the whole text in every problem, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const parsed = parseRules(text);
        for (const problem of parsed.problems)
          expect(problem).toMatch(/^(rule (\d+|"[A-Za-z0-9_-]+"): |is |has )/);
      }),
    );
  });
});
