import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lambda/config.ts';
import {
  ContextError,
  MAX_POLLER_TIMEOUT_SECONDS,
  parseMonitorContext,
  pollerTimeoutSeconds,
} from '../../lib/context.ts';
import { MAX_SCHEDULE_INPUT_CHARS, scheduleInputChars } from '../../lib/shards.ts';
import { contextProblems } from './synth.ts';

const base = { apiUrl: 'https://api.example.com' };

const problemsOf = contextProblems;

describe('parseMonitorContext', () => {
  it('applies the defaults of the README (Deploy) when only apiUrl is set', () => {
    // Act
    const settings = parseMonitorContext(base);

    // Assess
    expect(settings).toEqual({
      apiUrl: 'https://api.example.com',
      networks: [],
      alertEmails: [],
      alertSms: [],
      schedule: { expression: 'rate(1 minute)', minIntervalMinutes: 1, maxIntervalMinutes: 1 },
      retentionDays: 90,
      figureFields: [],
      channels: {},
    });
  });

  it('reads every key, from -c strings', () => {
    // Act
    const settings = parseMonitorContext({
      apiUrl: ' https://api.example.com/v1 ',
      networks: 'net-1, net-2 ,ä/ö',
      alertEmail: 'ops@example.com,oncall@example.org',
      alertSms: '+14155550100,+447700900123',
      schedule: 'rate(5 minutes)',
      statusPath: 'data.filter.state',
      apiKeySecretName: 'shieldwatch/api-key',
      retentionDays: '30',
      reservedConcurrency: '2',
      figureFields: 'traffic.in_pps, links.0.pps',
      shardSize: '2',
    });

    // Assess
    expect(settings).toEqual({
      apiUrl: 'https://api.example.com/v1',
      networks: ['net-1', 'net-2', 'ä/ö'],
      alertEmails: ['ops@example.com', 'oncall@example.org'],
      alertSms: ['+14155550100', '+447700900123'],
      schedule: { expression: 'rate(5 minutes)', minIntervalMinutes: 5, maxIntervalMinutes: 5 },
      statusPath: 'data.filter.state',
      apiKeySecretName: 'shieldwatch/api-key',
      retentionDays: 30,
      reservedConcurrency: 2,
      figureFields: ['traffic.in_pps', 'links.0.pps'],
      shardSize: 2,
      channels: {},
    });
  });

  it('reads lists and numbers as cdk.json holds them', () => {
    const settings = parseMonitorContext({
      ...base,
      networks: ['a', 'b'],
      alertEmail: ['x@example.com'],
      retentionDays: 7,
    });
    expect(settings.networks).toEqual(['a', 'b']);
    expect(settings.alertEmails).toEqual(['x@example.com']);
    expect(settings.retentionDays).toBe(7);
  });

  it('treats an empty value (-c key=) as unset', () => {
    const settings = parseMonitorContext({
      ...base,
      networks: '',
      statusPath: '',
      apiKeySecretName: '',
      schedule: '',
    });
    expect(settings.networks).toEqual([]);
    expect(settings.statusPath).toBeUndefined();
    expect(settings.apiKeySecretName).toBeUndefined();
    expect(settings.schedule.expression).toBe('rate(1 minute)');
  });

  it('ignores context keys of CDK and other tools', () => {
    expect(() =>
      parseMonitorContext({
        ...base,
        'cli-telemetry': false,
        '@aws-cdk/core:checkSecretUsage': true,
        'aws:cdk:bundling-stacks': [],
      }),
    ).not.toThrow();
  });

  it.each([
    ['apiUrl', { apiUrl: undefined }, /apiUrl: required/],
    ['apiUrl', { apiUrl: 'api.example.com' }, /apiUrl: expected an absolute https:\/\/ URL/],
    ['apiUrl', { apiUrl: 'http://api.example.com' }, /apiUrl: expected an https:\/\/ URL/],
    ['apiUrl', { apiUrl: 'http://127.0.0.1:8080' }, /apiUrl: expected an https:\/\/ URL/],
    ['apiUrl', { apiUrl: 'ftp://api.example.com' }, /apiUrl: expected an https:\/\/ URL/],
    ['apiUrl', { apiUrl: 'https://user:pw@api.example.com' }, /apiUrl: must not contain credentials/],
    ['apiUrl', { apiUrl: 'https://api.example.com/?key=1' }, /apiUrl: must not have a query/],
    ['apiUrl', { apiUrl: 42 }, /apiUrl: expected an https:\/\/ URL, got "42"/],
    ['networks', { networks: 'a,,b' }, /networks: has an empty entry/],
    ['networks', { networks: 'a,b,a' }, /networks: lists "a" twice/],
    ['networks', { networks: 'a\u0007b' }, /networks: id 1 contains a control character \(U\+0007/],
    ['netwroks', { netwroks: 'a' }, /^netwroks: unknown context key; did you mean networks\?/],
    [
      'aertEmail',
      { aertEmail: 'a@example.com' },
      /^aertEmail: unknown context key; did you mean alertEmail\?/,
    ],
    ['networks', { networks: 'a,..' }, /networks: "\.\." is not a network id \(only dots/],
    ['networks', { networks: [1, 2] }, /networks: expected a comma-separated list or an array of strings/],
    [
      'networks',
      { networks: Array.from({ length: 99 }, (_, i) => `${i}`.padStart(30, 'x')).join(',') },
      /^networks: 99 ids take 3,068 characters, more than the 2,048 the function's environment holds without sharding .*: set shardSize \(e\.g\. -c shardSize=\d+\)/,
    ],
    [
      'shardSize',
      { shardSize: 0 },
      /shardSize: expected a whole number of networks per shard from 1 to 10000/,
    ],
    ['shardSize', { shardSize: '2.5' }, /shardSize: expected a whole number of networks per shard/],
    ['shardSize', { shardSize: 'ten' }, /shardSize: expected a whole number of networks per shard/],
    [
      'alertEmail',
      { alertEmail: 'ops.example.com' },
      /alertEmail: "ops.example.com" is not an email address/,
    ],
    ['alertEmail', { alertEmail: 'ops@localhost' }, /alertEmail: "ops@localhost" is not an email address/],
    [
      'alertEmail',
      { alertEmail: 'a@example.com,b c@example.com' },
      /alertEmail: "b c@example.com" is not an email/,
    ],
    ['alertSms', { alertSms: '4155550100' }, /alertSms: "4155550100" is not an E\.164 phone number/],
    ['alertSms', { alertSms: '+1 415 555 0100' }, /alertSms: "\+1 415 555 0100" is not an E\.164/],
    ['alertSms', { alertSms: '+0123456' }, /alertSms: "\+0123456" is not an E\.164/],
    ['alertSms', { alertSms: '+1234567890123456' }, /alertSms: .* is not an E\.164/],
    ['schedule', { schedule: 'every minute' }, /schedule: "every minute": not a rate or cron expression/],
    [
      'schedule',
      { schedule: 'rate(1 minutes)' },
      /schedule: "rate\(1 minutes\)": write rate\(1 minute\): one minute takes the singular \(/,
    ],
    [
      'schedule',
      { schedule: 'rate(5 minute)' },
      /schedule: "rate\(5 minute\)": write rate\(5 minutes\): more than one minute takes the plural \(/,
    ],
    ['schedule', { schedule: 'rate(0 minutes)' }, /schedule: .*value of a rate must be a positive whole/],
    ['schedule', { schedule: 'rate(30 seconds)' }, /schedule: .*unit of a rate must be minute/],
    ['schedule', { schedule: 'rate(2 days)' }, /schedule: .*runs less than once a day/],
    ['schedule', { schedule: 'cron(0 12 * * ?)' }, /schedule: .*six fields/],
    [
      'schedule',
      { schedule: 'cron(60 * * * ? *)' },
      /schedule: .*Minutes field "60": values must be within 0-59/,
    ],
    ['schedule', { schedule: 'cron(0 24 * * ? *)' }, /schedule: .*Hours field "24"/],
    [
      'schedule',
      { schedule: 'cron(0 * * * * *)' },
      /schedule: .*exactly one of Day-of-month and Day-of-week/,
    ],
    ['schedule', { schedule: 'cron(0 9 ? * MON-FRI *)' }, /schedule: .*must run every day/],
    ['schedule', { schedule: 'cron(0 9 1 * ? *)' }, /schedule: .*must run every day/],
    ['schedule', { schedule: 'cron(a * * * ? *)' }, /schedule: .*Minutes field "a": expected/],
    [
      'statusPath',
      { statusPath: 'data..state' },
      /statusPath: status path "data\.\.state" has an empty segment/,
    ],
    ['statusPath', { statusPath: '.state' }, /statusPath: .*empty segment/],
    ['statusPath', { statusPath: 7 }, /statusPath: expected a dot path/],
    [
      'apiKeySecretName',
      { apiKeySecretName: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:x' },
      /apiKeySecretName: expected the secret name .* or its complete ARN .*ending in the six characters/,
    ],
    [
      'apiKeySecretName',
      { apiKeySecretName: 'key#1' },
      /apiKeySecretName: expected a Secrets Manager secret name/,
    ],
    [
      'retentionDays',
      { retentionDays: 0 },
      /retentionDays: expected a whole number of days from 1 to 3650, got "0"/,
    ],
    ['retentionDays', { retentionDays: '1.5' }, /retentionDays: expected a whole number of days/],
    ['retentionDays', { retentionDays: 'ninety' }, /retentionDays: expected a whole number of days/],
    ['retentionDays', { retentionDays: 3651 }, /retentionDays: expected a whole number/],
    [
      'reservedConcurrency',
      { reservedConcurrency: 0 },
      /reservedConcurrency: expected a whole number of concurrent executions from 1/,
    ],
    [
      'figureMetrics',
      { figureMetrics: 5 },
      /figureMetrics: no longer a context key: .*SHIELDWATCH_FIGURE_FIELDS \(context figureFields\)/,
    ],
    ['figureFields', { figureFields: 'a..b' }, /figureFields: "a\.\.b" has an empty segment/],
    ['figureFields', { figureFields: { a: 1 } }, /figureFields: expected a comma-separated list or an array/],
    [
      'figureFields',
      { figureFields: ['in pps', 'in_pps'] },
      /figureFields: .*would both be metric Figure\.in_pps/,
    ],
    [
      'alertEmails',
      { alertEmails: 'a@example.com' },
      /alertEmails: unknown context key; did you mean alertEmail\?/,
    ],
    ['apiurl', { apiurl: 'https://x.example.com' }, /apiurl: unknown context key; did you mean apiUrl\?/],
    [
      'retention-days',
      { 'retention-days': 5 },
      /retention-days: unknown context key; did you mean retentionDays\?/,
    ],
    ['shard-size', { 'shard-size': 5 }, /shard-size: unknown context key; did you mean shardSize\?/],
  ])('refuses a bad %s with a message that names it (%j)', (_key, values, message) => {
    // Act
    const problems = problemsOf({ ...base, ...values });

    // Assess
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('reports every problem at once, one line per key, in the thrown message', () => {
    // Act
    const act = () => parseMonitorContext({ apiUrl: 'http://x', alertSms: '555', retentionDays: -1 });

    // Assess
    expect(act).toThrow(ContextError);
    expect(act).toThrow(
      /Invalid shieldwatch context[\s\S]*- apiUrl: [\s\S]*- alertSms: [\s\S]*- retentionDays: /,
    );
  });
});

describe('parseMonitorContext with shardSize', () => {
  const fleet = (n: number, prefix = 'network-') => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

  it('lifts the environment cap: 5,000 networks in shards of 200', () => {
    // Act
    const settings = parseMonitorContext({ ...base, networks: fleet(5000), shardSize: '200' });

    // Assess
    expect(settings.networks).toHaveLength(5000);
    expect(settings.shardSize).toBe(200);
  });

  it('accepts the largest slice that fits a schedule input, and refuses one more', () => {
    // Prepare: ids of 10 characters take 13 each in the input ("id-0000001",), less the last comma;
    // the shards after the first are the longest (pollFilter false, and a shard index of one digit here)
    const networks = fleet(2000, 'id-').map((id) => id.replace(/\d+$/, (n) => n.padStart(7, '0')));
    const empty = { index: 1, networks: [], pollFilter: false, count: 2 };
    const largest = Math.floor((MAX_SCHEDULE_INPUT_CHARS - scheduleInputChars(empty) + 1) / 13);

    // Act
    const act = () => parseMonitorContext({ ...base, networks, shardSize: largest });

    // Assess
    expect(largest).toBe(598); // 599 before each event named the shard count ("shards":2)
    expect(act).not.toThrow();
    expect(problemsOf({ ...base, networks, shardSize: largest + 1 })).toEqual([
      expect.stringMatching(
        /^shardSize: shard 2 of 4 \(networks 600 to 1,198\) needs a schedule input of 8,2\d\d characters, more than the 8,192 a schedule carries: lower shardSize to 598 or less$/,
      ),
    ]);
  });

  it('fails when a slice does not fit the schedule input, naming shardSize and a size that fits', () => {
    // Act
    const problems = problemsOf({ ...base, networks: fleet(2000), shardSize: 1000 });

    // Assess
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^shardSize: shard 2 of 2 \(networks 1,001 to 2,000\) needs a schedule input of [\d,]+ characters, more than the 8,192 a schedule carries: lower shardSize to (\d+) or less$/,
    );
    const suggested = Number(/to (\d+) or less/.exec(problems[0]!)![1]);
    expect(() => parseMonitorContext({ ...base, networks: fleet(2000), shardSize: suggested })).not.toThrow();
  });

  it('fails when the shards would be more schedules than a stack holds, naming shardSize', () => {
    expect(problemsOf({ ...base, networks: fleet(500), shardSize: 2 })).toEqual([
      'shardSize: 500 networks in shards of 2 make 250 schedules, more than the 200 one stack holds ' +
        '(CloudFormation allows 500 resources): raise shardSize to at least 3',
    ]);
  });

  it('fails when all the slices together would not fit a template', () => {
    expect(problemsOf({ ...base, networks: fleet(9000, 'x'.repeat(60)), shardSize: 100 })).toEqual([
      expect.stringMatching(/^networks: 9,000 ids need [\d,]+ characters of schedule input in the template/),
    ]);
  });

  it('fails when reserved concurrency cannot run every shard at once', () => {
    expect(problemsOf({ ...base, networks: fleet(10), shardSize: 3, reservedConcurrency: 3 })).toEqual([
      expect.stringMatching(/^reservedConcurrency: 3 is less than the 4 shards that start together/),
    ]);
    expect(() =>
      parseMonitorContext({ ...base, networks: fleet(10), shardSize: 3, reservedConcurrency: 4 }),
    ).not.toThrow();
  });

  it('leaves the size checks out while networks or shardSize are themselves invalid', () => {
    expect(problemsOf({ ...base, networks: 'a,a', shardSize: 1 })).toEqual([
      expect.stringMatching(/^networks: /),
    ]);
    expect(problemsOf({ ...base, networks: fleet(500), shardSize: 0 })).toEqual([
      expect.stringMatching(/^shardSize: expected/),
    ]);
  });
});

describe("parseMonitorContext with the function's optional settings", () => {
  it('leaves every one of them out when unset or empty', () => {
    // Act
    const settings = parseMonitorContext({
      ...base,
      expectedStatus: '',
      remindEvery: '',
      confirmations: '',
      alertAfter: '',
      concurrency: '',
      requestTimeoutMs: '',
    });

    // Assess
    expect(settings).toEqual(parseMonitorContext(base));
  });

  it.each([
    ['expectedStatus', { expectedStatus: 'active' }, { expectedStatus: 'active' }],
    ['expectedStatus', { expectedStatus: ' Active ' }, { expectedStatus: ' Active ' }],
    ['expectedStatus', { expectedStatus: 'mitigation: on' }, { expectedStatus: 'mitigation: on' }],
    [
      'remindEvery',
      { expectedStatus: 'active', remindEvery: '30m' },
      { expectedStatus: 'active', remindEvery: '30m' },
    ],
    [
      'remindEvery',
      { expectedStatus: 'active', remindEvery: ' 1h ' },
      { expectedStatus: 'active', remindEvery: '1h' },
    ],
    [
      'remindEvery',
      { expectedStatus: 'active', remindEvery: '1m' },
      { expectedStatus: 'active', remindEvery: '1m' },
    ],
    [
      'remindEvery',
      { expectedStatus: 'active', remindEvery: '30d' },
      { expectedStatus: 'active', remindEvery: '30d' },
    ],
    [
      'remindEvery',
      { expectedStatus: 'active', remindEvery: '90s' },
      { expectedStatus: 'active', remindEvery: '90s' },
    ],
    ['confirmations', { confirmations: '1' }, { confirmations: 1 }],
    ['confirmations', { confirmations: 100 }, { confirmations: 100 }],
    ['alertAfter', { alertAfter: '1' }, { alertAfter: 1 }],
    ['alertAfter', { alertAfter: 1000 }, { alertAfter: 1000 }],
    ['concurrency', { concurrency: '1' }, { concurrency: 1 }],
    ['concurrency', { concurrency: 256 }, { concurrency: 256 }],
    ['requestTimeoutMs', { requestTimeoutMs: '100' }, { requestTimeoutMs: 100 }],
    ['requestTimeoutMs', { requestTimeoutMs: 10_000 }, { requestTimeoutMs: 10_000 }],
    ['figureFields', { figureFields: 'in_pps' }, { figureFields: ['in_pps'] }],
    ['figureFields', { figureFields: ['a.b', 'c.0.d'] }, { figureFields: ['a.b', 'c.0.d'] }],
    ['figureFields', { figureFields: '' }, { figureFields: [] }],
  ])('accepts %s %j', (_key, values, expected) => {
    // Act
    const settings = parseMonitorContext({ ...base, ...values });

    // Assess
    expect(settings).toEqual({ ...parseMonitorContext(base), ...expected });
  });

  it.each([
    ['expectedStatus', { expectedStatus: '   ' }, /^expectedStatus: expected a non-blank status/],
    ['expectedStatus', { expectedStatus: 1 }, /^expectedStatus: expected the status as a string, .*got "1"/],
    [
      'remindEvery',
      { expectedStatus: 'active', remindEvery: 'hourly' },
      /^remindEvery: expected a duration like 30m, 1h or 1d, from 1m to 30d, got "hourly"/,
    ],
    ['remindEvery', { expectedStatus: 'active', remindEvery: '59s' }, /^remindEvery: expected a duration/],
    ['remindEvery', { expectedStatus: 'active', remindEvery: '31d' }, /^remindEvery: expected a duration/],
    ['remindEvery', { expectedStatus: 'active', remindEvery: '1.5h' }, /^remindEvery: expected a duration/],
    ['remindEvery', { expectedStatus: 'active', remindEvery: '1w' }, /^remindEvery: expected a duration/],
    ['remindEvery', { expectedStatus: 'active', remindEvery: 60 }, /^remindEvery: expected a duration/],
    [
      'confirmations',
      { confirmations: 0 },
      /^confirmations: expected a whole number of cycles from 1 to 100, got "0"/,
    ],
    ['confirmations', { confirmations: '101' }, /^confirmations: expected a whole number .* 1 to 100/],
    ['confirmations', { confirmations: '2.5' }, /^confirmations: expected a whole number/],
    [
      'alertAfter',
      { alertAfter: 0 },
      /^alertAfter: expected a whole number of cycles from 1 to 1000, got "0"/,
    ],
    ['alertAfter', { alertAfter: '1001' }, /^alertAfter: expected a whole number .* 1 to 1000/],
    ['alertAfter', { alertAfter: 'three' }, /^alertAfter: expected a whole number/],
    [
      'concurrency',
      { concurrency: 0 },
      /^concurrency: expected a whole number of requests in flight from 1 to 256, got "0"/,
    ],
    ['concurrency', { concurrency: 257 }, /^concurrency: expected a whole number .* 1 to 256/],
    ['concurrency', { concurrency: -1 }, /^concurrency: expected a whole number/],
    [
      'requestTimeoutMs',
      { requestTimeoutMs: 99 },
      /^requestTimeoutMs: expected a whole number of milliseconds from 100 to 10000, got "99"/,
    ],
    ['requestTimeoutMs', { requestTimeoutMs: '10001' }, /^requestTimeoutMs: expected .* 100 to 10000/],
    ['requestTimeoutMs', { requestTimeoutMs: '5s' }, /^requestTimeoutMs: expected a whole number/],
    [
      'expected-status',
      { 'expected-status': 'active' },
      /^expected-status: unknown context key; did you mean expectedStatus\?/,
    ],
    [
      'remind_every',
      { remind_every: '1h' },
      /^remind_every: unknown context key; did you mean remindEvery\?/,
    ],
    [
      'requestTimeoutMS',
      { requestTimeoutMS: 500 },
      /^requestTimeoutMS: unknown context key; did you mean requestTimeoutMs\?/,
    ],
  ])('refuses a bad %s with a message that names it (%j)', (_key, values, message) => {
    // Act
    const problems = problemsOf({ ...base, ...values });

    // Assess
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  // CONTRACT §14: SHIELDWATCH_REMIND_EVERY applies to every open, unacknowledged incident (a rule's, the API's),
  // so it no longer needs an expected status; the function's loader takes it alone too.
  it.each([
    ['unset', {}],
    ['empty', { expectedStatus: '' }],
  ])('accepts remindEvery without expectedStatus (%s), as the function does', (_name, values) => {
    // Act
    const settings = parseMonitorContext({ ...base, remindEvery: '1h', ...values });
    const config = loadConfig({
      SHIELDWATCH_API_URL: 'https://api.example.com',
      SHIELDWATCH_API_KEY: 'test-key',
      SHIELDWATCH_REMIND_EVERY: '1h',
      ...('expectedStatus' in values ? { SHIELDWATCH_EXPECTED_STATUS: values.expectedStatus } : {}),
    });

    // Assess
    expect(settings.remindEvery).toBe('1h');
    expect(settings.expectedStatus).toBeUndefined();
    expect(config.remindEveryMs).toBe(3_600_000);
    expect(config.expectedStatus).toBeUndefined();
  });

  it('reports a bad remindEvery alone, without expectedStatus, and a blank expectedStatus once', () => {
    expect(problemsOf({ ...base, remindEvery: '1y' })).toEqual([
      expect.stringMatching(/^remindEvery: expected a duration/),
    ]);
    expect(problemsOf({ ...base, remindEvery: '1h', expectedStatus: ' ' })).toEqual([
      expect.stringMatching(/^expectedStatus: expected a non-blank status/),
    ]);
  });

  it("keeps every accepted request timeout below the function's timeout, whatever the schedule", () => {
    // The check of requestTimeoutMs against the timeout guards the sizing rule; today the shortest
    // function timeout (30 s, for rate(1 minute)) is above the longest request time-out.
    expect(pollerTimeoutSeconds(1)).toBe(30);
    expect(pollerTimeoutSeconds(60 * 24)).toBe(MAX_POLLER_TIMEOUT_SECONDS);
    expect(pollerTimeoutSeconds(1) * 1000).toBeGreaterThan(10_000);
    expect(
      parseMonitorContext({ ...base, schedule: 'rate(1 minute)', requestTimeoutMs: 10_000 }).requestTimeoutMs,
    ).toBe(10_000);
  });

  describe('accepts exactly what the function accepts', () => {
    const functionEnv = { SHIELDWATCH_API_URL: 'https://api.example.com', SHIELDWATCH_API_KEY: 'test-key' };
    const functionAccepts = (variables: Record<string, string>): boolean => {
      try {
        loadConfig({ ...functionEnv, ...variables });
        return true;
      } catch (error) {
        if (error instanceof ConfigError) return false;
        throw error;
      }
    };
    const contextAccepts = (values: Record<string, unknown>): boolean => {
      try {
        parseMonitorContext({ ...base, ...values });
        return true;
      } catch (error) {
        if (error instanceof ContextError) return false;
        throw error;
      }
    };

    it.each([
      ['confirmations', 'SHIELDWATCH_CONFIRMATIONS', ['0', '1', '100', '101', 'x']],
      ['alertAfter', 'SHIELDWATCH_ALERT_AFTER', ['0', '1', '1000', '1001', '-3']],
      ['concurrency', 'SHIELDWATCH_CONCURRENCY', ['0', '1', '256', '257', '8.0']],
      ['requestTimeoutMs', 'SHIELDWATCH_TIMEOUT_MS', ['99', '100', '10000', '10001', '1e3']],
    ])('%s as %s', (key, variable, values) => {
      for (const value of values) {
        expect(contextAccepts({ [key]: value }), `${key}=${value}`).toBe(
          functionAccepts({ [variable]: value }),
        );
      }
    });

    it.each(['1m', '60s', '59s', '30d', '31d', '720h', '721h', '2 H', '1w', '0m'])(
      'remindEvery %j as SHIELDWATCH_REMIND_EVERY, with and without expectedStatus',
      (value) => {
        expect(contextAccepts({ expectedStatus: 'active', remindEvery: value })).toBe(
          functionAccepts({ SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_REMIND_EVERY: value }),
        );
        expect(contextAccepts({ remindEvery: value })).toBe(
          functionAccepts({ SHIELDWATCH_REMIND_EVERY: value }),
        );
      },
    );
  });
});

describe('control characters and whitespace at synth (issue 15.2)', () => {
  it.each([
    { name: 'a newline that the URL parser drops', apiUrl: 'https://api.example.com\n.attacker.test' },
    { name: 'a tab that the URL parser drops', apiUrl: 'https://api.exam\tple.com.attacker.test/v1' },
    { name: 'a carriage return', apiUrl: 'https://api.example.com\r/v1' },
    { name: 'a trailing newline', apiUrl: 'https://api.example.com/v1\n' },
    { name: 'a space inside', apiUrl: 'https://api.example.com /v1' },
    { name: 'a no-break space', apiUrl: 'https://api.example.com\u00A0.attacker.test' },
    { name: 'a zero-width space', apiUrl: 'https://api.example\u200B.com' },
  ])('refuses an apiUrl with $name, without showing it', ({ apiUrl }) => {
    // Act
    const problems = problemsOf({ apiUrl });

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(
        /^apiUrl: contains (a control character|whitespace|an invisible formatting character) \(U\+[0-9A-F]{4} at character \d+\); refused \(value not shown\)$/,
      ),
    ]);
    expect(problems.join('\n')).not.toContain('attacker');
  });

  it.each([
    {
      networks: 'net-1,net\n2',
      problem: /^networks: id 2 contains a control character \(U\+000A at character 4\)/,
    },
    { networks: 'net-1\t', problem: /^networks: id 1 contains a control character \(U\+0009/ },
    { networks: ['net\u00851'], problem: /^networks: id 1 contains a control character \(U\+0085/ },
    { networks: 'office 1', problem: /^networks: id 1 contains whitespace \(U\+0020 at character 7\)/ },
    { networks: 'net\u202E1', problem: /^networks: id 1 contains an invisible formatting character/ },
    { apiKeySecretName: 'shieldwatch/api-key\n', problem: /^apiKeySecretName: contains a control character/ },
    { apiKeySecretName: 'my secret', problem: /^apiKeySecretName: contains whitespace/ },
    { alertEmail: 'ops\u0007@example.com', problem: /^alertEmail: "ops\\u0007@example.com" is not an email/ },
  ])('refuses %j', ({ problem, ...values }) => {
    // Act
    const problems = problemsOf({ ...base, ...values });

    // Assess
    expect(problems).toEqual([expect.stringMatching(problem)]);
  });

  it.each([
    'https://api.example.com\n.attacker.test',
    'https://api.example.com\t/v1',
    'https://api.example.com /v1',
    'https://api.exam\u00ADple.com',
  ])('agrees with the function, which refuses %j too', (apiUrl) => {
    // Act
    const context = () => parseMonitorContext({ apiUrl });
    const fn = () => loadConfig({ SHIELDWATCH_API_URL: apiUrl, SHIELDWATCH_API_KEY: 'test-key-0123' });

    // Assess
    expect(context).toThrow(ContextError);
    expect(fn).toThrow(ConfigError);
  });
});
