/**
 * The `rules` context key (issue 10): parsed as the function parses `SHIELDWATCH_RULES`, every problem naming
 * `rules` and the rule, and the rules reaching the function's environment so that the function reads the
 * same rules.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/config.ts';
import { parseMonitorContext } from '../../lib/context.ts';
import { MAX_LISTS_CHARS } from '../../lib/context-values.ts';
import { contextProblems, synthMonitor } from './synth.ts';

const base = { apiUrl: 'https://api.example.com', networks: 'n1,n2' };

const problemsOf = (values: Record<string, unknown>) => contextProblems({ ...base, ...values });

describe('the rules context key', () => {
  it.each([
    ['a -c string with ";"', 'pps: traffic.in_pps > 50k for 3; attack: attack.active == true on n2'],
    ['a string with newlines', 'pps: traffic.in_pps > 50k for 3\n\n  attack: attack.active == true on n2\n'],
    ['a cdk.json array', ['pps: traffic.in_pps > 50k for 3', 'attack: attack.active == true on n2']],
  ])('takes %s, as the rules written joined by ";"', (_name, rules) => {
    // Act
    const settings = parseMonitorContext({ ...base, rules });

    // Assess
    expect(settings.rules).toBe('pps: traffic.in_pps > 50k for 3;attack: attack.active == true on n2');
  });

  it.each([
    ['unset', {}],
    ['blank', { rules: '' }],
    ['only separators', { rules: ' ; \n ' }],
  ])('%s is no rules', (_name, values) => {
    expect(parseMonitorContext({ ...base, ...values }).rules).toBeUndefined();
  });

  it('fails naming rules, each bad rule and what is wrong, all at once', () => {
    // Act
    const problems = problemsOf({ rules: 'pps: traffic.in_pps > lots; flag: a.b > true; far: x > 1 on n9' });

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(/^rules: rule "pps": the value "lots" is not a number/),
      'rules: rule "flag": true and false are compared with == or !=, not >',
      'rules: rule "far": "on" names "n9", not among the configured networks',
    ]);
  });

  it('refuses a value that is no text', () => {
    expect(problemsOf({ rules: 42 })).toEqual([
      'rules: expected the rules as a string or an array of strings, got "42"',
    ]);
  });

  it("refuses rules that with the networks would not fit in the function's environment", () => {
    // Prepare: 1,919 characters of networks (fine alone) and 1,500 of rules (fine alone).
    const networks = Array.from({ length: 160 }, (_, i) => `network-${String(i).padStart(3, '0')}`).join(',');
    const rules = Array.from(
      { length: 20 },
      (_, i) => `rule-${i}: traffic.${'x'.repeat(50)} > ${i} for 3`,
    ).join(';');

    // Act
    const problems = problemsOf({ networks, rules });

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^rules: .* more than the ${MAX_LISTS_CHARS} .*shardSize`)),
    ]);
    expect(() => parseMonitorContext({ ...base, networks, rules, shardSize: 100 })).not.toThrow();
  });
});

describe('the rules in the function', () => {
  it('reach the function as SHIELDWATCH_RULES, which its loader reads back to the same rules', () => {
    // Act
    const template = synthMonitor({
      networks: 'n1,n2',
      rules: ['pps: traffic.in_pps > 50k', 'up: link.up == false on n1'],
    });

    // Assess
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
    const variables = fn['Properties'].Environment.Variables as Record<string, string>;
    expect(variables['SHIELDWATCH_RULES']).toBe('pps: traffic.in_pps > 50k;up: link.up == false on n1');
    const config = loadConfig({
      SHIELDWATCH_API_URL: 'https://api.example.com',
      SHIELDWATCH_API_KEY: 'test-key',
      SHIELDWATCH_NETWORKS: 'n1,n2',
      SHIELDWATCH_RULES: variables['SHIELDWATCH_RULES'],
    });
    expect(config.rules.map((rule) => rule.text)).toEqual([
      'pps: traffic.in_pps > 50k',
      'up: link.up == false on n1',
    ]);
  });

  it('without rules, the variable is left out', () => {
    // Act
    const template = synthMonitor({ networks: 'n1' });

    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SHIELDWATCH_RULES: Match.absent() }) },
    });
  });

  it('bad rules fail synth naming rules', () => {
    expect(() => synthMonitor({ networks: 'n1', rules: 'pps: x >' })).toThrow(
      /rules: rule "pps": the value after the operator is missing/,
    );
  });
});
