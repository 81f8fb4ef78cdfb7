import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/config.ts';
import { SLOTTED_POLLER_TIMEOUT_SECONDS } from '../../lib/constructs/poller-function.ts';
import { parseMonitorContext } from '../../lib/context.ts';
import { contextProblems, synthMonitor } from './synth.ts';

const base = { apiUrl: 'https://api.example.com' };

const problemsOf = contextProblems;

describe('context pollEvery (CONTRACT §18)', () => {
  it('takes 10s to 60s dividing a minute, and is left out when unset', () => {
    expect(parseMonitorContext({ ...base, pollEvery: '10s' }).pollEvery).toBe('10s');
    expect(parseMonitorContext({ ...base, pollEvery: ' 30s ' }).pollEvery).toBe('30s');
    expect(parseMonitorContext(base).pollEvery).toBeUndefined();
  });

  it.each([
    ['5s', 'outside 10s to 60s'],
    ['25s', 'divide a minute'],
    [10, 'expected a duration'],
  ])('refuses %j naming the key: %s', (value, words) => {
    const problems = problemsOf({ ...base, pollEvery: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^pollEvery: /);
    expect(problems[0]).toContain(words);
  });

  it('refuses polling within the minute on a schedule that does not run every minute, and a request time-out longer than a slot', () => {
    const problems = problemsOf({
      ...base,
      pollEvery: '10s',
      schedule: 'rate(5 minutes)',
      requestTimeoutMs: 9500,
    });
    expect(problems.some((p) => p.startsWith('pollEvery:') && p.includes('rate(5 minutes)'))).toBe(true);
    expect(problems.some((p) => p.startsWith('requestTimeoutMs:') && p.includes('below 9000'))).toBe(true);
  });

  describe('in the template', () => {
    let template: Template;
    beforeAll(() => {
      template = synthMonitor({ ...base, pollEvery: '10s' });
    });

    it('gives the function SHIELDWATCH_POLL_EVERY, which its config reads back, and a timeout that holds the minute', () => {
      const [fn] = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Environment: { Variables: { SHIELDWATCH_POLL_EVERY: '10s' } } },
        }),
      ) as Array<{ Properties: { Timeout: number; Environment: { Variables: Record<string, string> } } }>;
      expect(fn?.Properties.Timeout).toBe(SLOTTED_POLLER_TIMEOUT_SECONDS);
      const env = Object.fromEntries(
        Object.entries(fn!.Properties.Environment.Variables).filter(([, v]) => typeof v === 'string'),
      );
      expect(
        loadConfig({ ...env, SHIELDWATCH_API_KEY: 'k'.repeat(24), SHIELDWATCH_API_KEY_SECRET: undefined })
          .pollEveryMs,
      ).toBe(10_000);
    });
  });
});
