import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMAIL_MAX_BYTES, type RenderContext, renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import { shortValue } from '../../lambda/core/alerts/rule-alert-text.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import { parseRules, printRule } from '../../lambda/core/rules/rules.ts';
import type { AlertRecord, RuleAlertRecord } from '../../lambda/core/types.ts';

const AT = '2026-11-22T10:04:05.000Z';
const SINCE = '2026-11-22T09:51:05.000Z';
const CTX: RenderContext = { networks: [] };
const PRINTABLE = /^[\x20-\x7E]*$/;

function triggered(extra: Partial<RuleAlertRecord> = {}): RuleAlertRecord {
  return {
    seq: 7,
    event: 'network.rule_triggered',
    at: AT,
    rule: 'pps',
    network: '2',
    value: 90000,
    threshold: 50000,
    ruleText: 'pps: traffic.in_pps > 50000 for 3',
    values: [60000, 75000, 90000],
    incident: `pps/2/${AT}`,
    triggeredAt: AT,
    ...extra,
  };
}

function resolved(extra: Partial<RuleAlertRecord> = {}): RuleAlertRecord {
  return triggered({
    event: 'network.rule_resolved',
    value: 40000,
    values: [45000, 42000, 40000],
    triggeredAt: SINCE,
    incident: `pps/2/${SINCE}`,
    ...extra,
  });
}

const BASELINE = {
  rule: 'surge',
  ruleText: 'surge: traffic.in_pps > 3x baseline',
  value: 90000,
  threshold: 36000,
  baseline: 12000,
  values: [90000],
};

describe('rule alerts: subject and SMS', () => {
  it.each([
    {
      name: 'a trigger',
      alert: triggered(),
      subject: '[shieldwatch] net 2: pps triggered (traffic.in_pps 90000 > 50000)',
      sms: 'shieldwatch: net 2: pps triggered (traffic.in_pps 90000 > 50000), seen 2026-11-22 10:04 UTC.',
    },
    {
      name: 'a resolve shows the value on the other side and how long it lasted',
      alert: resolved(),
      subject: '[shieldwatch] net 2: pps resolved (traffic.in_pps 40000 <= 50000)',
      sms: 'shieldwatch: net 2: pps resolved after 13m (traffic.in_pps 40000 <= 50000), seen 2026-11-22 10:04 UTC.',
    },
    {
      name: 'a baseline rule names the factor and the baseline',
      alert: triggered(BASELINE),
      subject: '[shieldwatch] net 2: surge triggered (traffic.in_pps 90000 > 3x baseline 12000)',
      sms: 'shieldwatch: net 2: surge triggered (traffic.in_pps 90000 > 3x baseline 12000), seen 2026-11-22 10:04 UTC.',
    },
    {
      name: 'a boolean rule',
      alert: triggered({
        rule: 'attack',
        ruleText: 'attack: attack.active == true on 2',
        value: true,
        threshold: true,
        values: [true],
      }),
      subject: '[shieldwatch] net 2: attack triggered (attack.active true == true)',
      sms: 'shieldwatch: net 2: attack triggered (attack.active true == true), seen 2026-11-22 10:04 UTC.',
    },
    {
      name: 'long fractions are cut to six significant digits',
      alert: triggered({ value: 1234567.891, threshold: 0.1 + 0.2 }),
      subject: '[shieldwatch] net 2: pps triggered (traffic.in_pps 1234570 > 0.3)',
      sms: 'shieldwatch: net 2: pps triggered (traffic.in_pps 1234570 > 0.3), seen 2026-11-22 10:04 UTC.',
    },
    {
      name: 'an unreadable rule text still names value and threshold',
      alert: triggered({ ruleText: 'garbage' }),
      subject: '[shieldwatch] net 2: pps triggered (90000 vs 50000)',
      sms: 'shieldwatch: net 2: pps triggered (90000 vs 50000), seen 2026-11-22 10:04 UTC.',
    },
    {
      name: 'hidden characters in a network id are escaped, never passed on',
      alert: triggered({ network: 'net\u202Eevil\u0007' }),
      subject: '[shieldwatch] net net<U+202E>evil<U+0007>: pps triggered (traffic.in_pps 90000 > 50000)',
      sms: 'shieldwatch: net net<U+202E>evil<U+0007>: pps triggered (traffic.in_pps 90000 > 50000), seen 2026-11-22 10:04 UTC.',
    },
  ])('$name', ({ alert, subject, sms }) => {
    const rendered = renderAlert(alert, CTX);
    expect(rendered.subject).toBe(subject);
    expect(rendered.sms).toBe(sms);
  });

  it('a long network id and path share the subject, keeping the comparison whole', () => {
    const alert = triggered({
      network: 'n'.repeat(300),
      ruleText: `pps: ${'p'.repeat(100)} > 50000`,
    });
    const { subject, sms } = renderAlert(alert, CTX);
    expect(subject.length).toBeLessThanOrEqual(99);
    expect(subject).toMatch(/^\[shieldwatch\] net n+\.\.\.: pps triggered \(p+\.\.\. 90000 > 50000\)$/);
    expect(sms.length).toBeLessThanOrEqual(160);
    expect(sms).toMatch(/ 90000 > 50000\), seen 2026-11-22 10:04 UTC\.$/);
  });

  it.each([
    [90000, '90000'],
    [-5, '-5'],
    [12345678, '12345678'],
    [1.5e21, '1.5e+21'],
    [0.000123456789, '0.000123457'],
    [true, 'true'],
    [Number.NaN, '?'],
    ['x', '?'],
  ])('shortValue(%s) is %s', (value, shown) => {
    expect(shortValue(value)).toBe(shown);
  });
});

describe('rule alerts: email and attributes', () => {
  it('a trigger: the rule as written, the network, the value, the threshold and the last N values', () => {
    const { email } = renderAlert(triggered(), CTX);
    expect(email).toContain('A traffic rule triggered');
    expect(email).toContain('Rule:                   pps: traffic.in_pps > 50000 for 3');
    expect(email).toContain('Network:                2');
    expect(email).toContain('Value (triggering):     90000');
    expect(email).toContain('Threshold:              50000');
    expect(email).toContain('Last 3 cycles:          60000, 75000, 90000 (the condition held, oldest first)');
    expect(email).toContain(`Incident:               pps/2/${AT}`);
    expect(email).not.toContain('Lasted');
    expect(email).not.toContain('expected');
  });

  it('a resolve: when it triggered and how long it lasted', () => {
    const { email } = renderAlert(resolved(), CTX);
    expect(email).toContain('A traffic rule resolved');
    expect(email).toContain('Value (resolving):      40000');
    expect(email).toContain(
      'Last 3 cycles:          45000, 42000, 40000 (the condition failed, oldest first)',
    );
    expect(email).toContain(`Triggered:              ${SINCE}`);
    expect(email).toContain('Lasted:                 13m');
    // A resolve stored before it carried its peak has no peak line.
    expect(email).not.toContain('Peak:');
  });

  it("a resolve with its incident's peak on the network: the peak, when and its multiple of the threshold", () => {
    // Act
    const { email } = renderAlert(resolved({ peak: 125000, peakAt: '2026-11-22T09:55:00.000Z' }), CTX);
    const below = renderAlert(
      resolved({
        rule: 'low',
        ruleText: 'low: traffic.in_pps < 100',
        threshold: 100,
        value: 150,
        values: [150],
        peak: 2,
        peakAt: '2026-11-22T09:55:00.000Z',
      }),
      CTX,
    );

    // Assess
    expect(email).toContain(
      'Peak:                   125000 at 2026-11-22T09:55:00.000Z (2.5x the threshold)',
    );
    expect(below.email).toContain('Peak:                   2 at 2026-11-22T09:55:00.000Z\n');
  });

  it('a baseline rule: the threshold as factor x baseline, and the baseline itself', () => {
    const { email } = renderAlert(triggered(BASELINE), CTX);
    expect(email).toContain('Threshold:              3 x baseline = 36000');
    expect(email).toContain(
      "Baseline:               12000 (the median of the network's last readable values",
    );
  });

  it('hidden characters from the rule or network show as <U+XXXX>', () => {
    const { email } = renderAlert(triggered({ network: 'a\u200Bb', ruleText: 'pps: x\u202E > 1' }), CTX);
    expect(email).toContain('Network:                a<U+200B>b');
    expect(email).toContain('Rule:                   pps: x<U+202E> > 1');
  });

  it.each([
    [
      triggered(),
      {
        event: 'network.rule_triggered',
        rule: 'pps',
        network: '2',
        severity: 'high',
        action: 'trigger',
        stage: '1',
        incident: `pps/2/${AT}`,
      },
    ],
    [
      resolved(),
      {
        event: 'network.rule_resolved',
        rule: 'pps',
        network: '2',
        severity: 'resolved',
        action: 'resolve',
        stage: '1',
        incident: `pps/2/${SINCE}`,
      },
    ],
    [
      triggered({ network: '' }),
      {
        event: 'network.rule_triggered',
        rule: 'pps',
        network: '(empty)',
        severity: 'high',
        action: 'trigger',
        stage: '1',
        incident: `pps/2/${AT}`,
      },
    ],
  ])('attributes of %#', (alert, attributes) => {
    // CONTRACT 10's attributes, and 13-14's `incident` and `stage` (1 before any escalation), as every incident
    // alert carries them.
    expect(renderAlert(alert, CTX).attributes).toEqual(attributes);
  });
});

describe('rule alerts: what the evaluator makes renders', () => {
  it('an evaluated trigger and resolve render with the numbers the evaluator compared', () => {
    const { rules } = parseRules('surge: traffic.in_pps > 3x baseline');
    let state: Parameters<typeof evaluateRules>[0]['state'];
    const alerts: AlertRecord[] = [];
    const values = [100, 110, 90, 100, 105, 95, 100, 100, 100, 100, 5000, 80];
    for (const [i, value] of values.entries()) {
      const at = new Date(Date.UTC(2026, 10, 22, 10, i)).toISOString();
      const result = evaluateRules({
        rules,
        networks: ['2'],
        state,
        at,
        observations: [{ networkId: '2', at, readings: { surge: { kind: 'value', value } } }],
      });
      state = result.state;
      alerts.push(...result.alerts.map((alert, n) => ({ ...alert, seq: i * 10 + n })));
    }
    expect(alerts.map((alert) => renderAlert(alert, CTX).subject)).toEqual([
      '[shieldwatch] net 2: surge triggered (traffic.in_pps 5000 > 3x baseline 100)',
      '[shieldwatch] net 2: surge resolved (traffic.in_pps 80 <= 3x baseline 100)',
    ]);
  });
});

describe('rule alerts: limits under hostile ids and paths (fast-check)', () => {
  const hostile = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 600 }),
    fc.string({
      unit: fc.constantFrom(
        '\u202E',
        '\u200B',
        '\u0000',
        '\n',
        '\u041E',
        'e\u0301',
        '\u8FD0',
        '\uD83D',
        'a',
        '.',
      ),
      maxLength: 200,
    }),
  );
  const pathSegment = fc
    .string({ unit: 'binary', minLength: 1, maxLength: 30 })
    .filter((s) => !/[\s.;<>=!]/u.test(s));

  it('subject ASCII and at most 99, SMS ASCII and at most 160, email within its size, attributes exact', () => {
    fc.assert(
      fc.property(
        hostile,
        fc.array(pathSegment, { minLength: 1, maxLength: 5 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.constantFrom('network.rule_triggered' as const, 'network.rule_resolved' as const),
        fc.oneof(fc.double(), fc.boolean()),
        fc.option(fc.double(), { nil: undefined }),
        (network, segments, monitorName, event, value, baseline) => {
          const path = segments.join('.');
          const rule = {
            name: 'r-1_x'.repeat(8),
            path,
            op: '>' as const,
            threshold: { kind: 'baseline' as const, factor: 1.5 },
            forCycles: 100,
          };
          const alert: AlertRecord = {
            ...triggered({ event, network, value, threshold: 1.5, values: [value, value] }),
            ...(baseline === undefined ? {} : { baseline }),
            rule: rule.name,
            ruleText: printRule({ ...rule, text: '' }),
          };
          const rendered = renderAlert(alert, { networks: [], monitorName });
          expect(rendered.subject).toMatch(PRINTABLE);
          expect(rendered.subject.length).toBeGreaterThan(0);
          expect(rendered.subject.length).toBeLessThanOrEqual(99);
          expect(rendered.sms).toMatch(PRINTABLE);
          expect(rendered.sms.length).toBeLessThanOrEqual(160);
          expect(Buffer.byteLength(rendered.email)).toBeLessThanOrEqual(EMAIL_MAX_BYTES);
          expect(rendered.email).not.toMatch(/[\u202E\u200B\u0000]/);
          expect(rendered.attributes['rule']).toBe(rule.name);
          expect(rendered.attributes['severity']).toBe(
            event === 'network.rule_resolved' ? 'resolved' : 'high',
          );
        },
      ),
    );
  });
});
