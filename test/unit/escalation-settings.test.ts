/**
 * The escalation and acknowledge-link settings (docs/acknowledge.md): the env loader and the CDK context accept
 * the same `escalateAfter` text and refuse the same mistakes, each naming its variable or key.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lambda/config.ts';
import { ContextError, parseMonitorContext } from '../../lib/context.ts';

const ENV = { SHIELDWATCH_API_URL: 'https://api.example.com', SHIELDWATCH_API_KEY: 'test-key-0123' };
const MIN = 60_000;

function configProblems(env: Record<string, string>): readonly string[] {
  try {
    loadConfig({ ...ENV, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

function contextProblems(values: Record<string, unknown>): readonly string[] {
  try {
    parseMonitorContext({ apiUrl: 'https://api.example.com', ...values });
  } catch (error) {
    if (error instanceof ContextError) return error.problems;
    throw error;
  }
  return [];
}

describe('SHIELDWATCH_ESCALATE_AFTER and context escalateAfter', () => {
  it('reads the stages in milliseconds; unset is none', () => {
    expect(loadConfig({ ...ENV, SHIELDWATCH_ESCALATE_AFTER: '10m, 30m' }).escalateAfterMs).toEqual([
      10 * MIN,
      30 * MIN,
    ]);
    expect(loadConfig(ENV).escalateAfterMs).toBeUndefined();
    expect(
      parseMonitorContext({ apiUrl: 'https://api.example.com', escalateAfter: '10m,30m' }),
    ).toMatchObject({
      escalateAfter: '10m,30m',
    });
  });

  it.each(['30m,10m', '30s', '8d', 'soon', '10m,10m'])(
    '%j is refused by both, naming the setting',
    (text) => {
      expect(configProblems({ SHIELDWATCH_ESCALATE_AFTER: text })).toEqual([
        expect.stringMatching(/^SHIELDWATCH_ESCALATE_AFTER: .*each 1m to 7d, increasing/),
      ]);
      expect(contextProblems({ escalateAfter: text })).toEqual([
        expect.stringMatching(/^escalateAfter: .*each 1m to 7d, increasing/),
      ]);
    },
  );

  it('a misspelt context key is named', () => {
    expect(contextProblems({ escalateAftr: '10m' })).toEqual([
      expect.stringMatching(/did you mean escalateAfter/),
    ]);
  });
});

describe('SHIELDWATCH_ACK_URL and SHIELDWATCH_ACK_SECRET', () => {
  const url = 'https://abc123.lambda-url.eu-west-1.on.aws/';
  const secret = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AckKey-AbCdEf';

  it('both set: the link is on', () => {
    expect(loadConfig({ ...ENV, SHIELDWATCH_ACK_URL: url, SHIELDWATCH_ACK_SECRET: secret }).ackLink).toEqual({
      url,
      secretId: secret,
    });
    expect(loadConfig(ENV).ackLink).toBeUndefined();
  });

  it.each([
    [{ SHIELDWATCH_ACK_URL: url }, /go together/],
    [{ SHIELDWATCH_ACK_SECRET: secret }, /go together/],
    [
      { SHIELDWATCH_ACK_URL: 'http://example.com/', SHIELDWATCH_ACK_SECRET: secret },
      /must be an https:\/\/ URL/,
    ],
    [{ SHIELDWATCH_ACK_URL: 'not a url', SHIELDWATCH_ACK_SECRET: secret }, /SHIELDWATCH_ACK_URL/],
  ])('%j is refused', (env, problem) => {
    expect(configProblems(env).join('\n')).toMatch(problem);
  });
});
