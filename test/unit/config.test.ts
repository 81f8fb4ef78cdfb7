import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  configWarnings,
  isLoopbackHost,
  loadConfig,
  loadStoreConfig,
  type MonitorConfig,
} from '../../lambda/config.ts';

type Env = Record<string, string | undefined>;

/** The least a monitor needs; every test adds or overrides what it is about. */
const MINIMAL: Env = {
  SHIELDWATCH_API_URL: 'https://api.example.com',
  SHIELDWATCH_API_KEY: 'test-key-0123',
};

function env(overrides: Env = {}): Env {
  return { ...MINIMAL, ...overrides };
}

/** Runs `load` and returns the ConfigError it throws; fails the test when it throws nothing else. */
function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}

describe('ConfigError', () => {
  it.each([
    { problems: ['A is wrong'], heading: 'invalid configuration (1 problem):' },
    { problems: ['A is wrong', 'B is wrong'], heading: 'invalid configuration (2 problems):' },
  ])('lists $problems.length problem(s), one a line', ({ problems, heading }) => {
    // Act
    const error = new ConfigError(problems);

    // Assess
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
    expect(error.problems).toEqual(problems);
    expect(error.message).toBe([heading, ...problems.map((p) => `  - ${p}`)].join('\n'));
  });
});

describe('loadConfig defaults', () => {
  it('fills every optional setting with its documented default', () => {
    // Act
    const config = loadConfig(env());

    // Assess
    expect(config).toStrictEqual<MonitorConfig>({
      apiUrl: 'https://api.example.com',
      apiKey: { kind: 'env', variable: 'SHIELDWATCH_API_KEY' },
      networks: [],
      table: 'shieldwatch',
      retentionDays: 90,
      concurrency: 10,
      timeoutMs: 5000,
      maxBodyBytes: 1_048_576,
      retries: 2,
      alertAfter: 3,
      confirmations: 1,
      figureFields: [],
      rules: [],
      cycleTimeoutMs: 30_000,
      monitorName: 'shieldwatch',
      groupBy: 'rule',
      groupIntervalMs: 300_000,
    });
  });

  it('reminds of incidents without an expected status; groups by rule or not, every interval from 1m to 1d', () => {
    // Act
    const config = loadConfig(
      env({ SHIELDWATCH_REMIND_EVERY: '1h', SHIELDWATCH_GROUP_BY: 'none', SHIELDWATCH_GROUP_INTERVAL: '1d' }),
    );

    // Assess
    expect(config).toMatchObject({ remindEveryMs: 3_600_000, groupBy: 'none', groupIntervalMs: 86_400_000 });
  });

  it.each([
    { name: 'empty', value: '' },
    { name: 'blank', value: '   ' },
  ])('treats $name optional variables as unset', ({ value }) => {
    // Prepare
    const blank: Env = Object.fromEntries(
      [
        'SHIELDWATCH_NETWORKS',
        'SHIELDWATCH_STATUS_PATH',
        'SHIELDWATCH_TABLE',
        'SHIELDWATCH_TOPIC_ARN',
        'SHIELDWATCH_CONCURRENCY',
        'SHIELDWATCH_TIMEOUT_MS',
        'SHIELDWATCH_MAX_BODY_BYTES',
        'SHIELDWATCH_RETENTION_DAYS',
        'SHIELDWATCH_RETRIES',
        'SHIELDWATCH_ALERT_AFTER',
        'SHIELDWATCH_CONFIRMATIONS',
        'SHIELDWATCH_FIGURE_FIELDS',
        'SHIELDWATCH_RULES',
        'SHIELDWATCH_CYCLE_TIMEOUT_MS',
        'SHIELDWATCH_NAME',
      ].map((name) => [name, value]),
    );

    // Act
    const config = loadConfig(env(blank));

    // Assess
    expect(config).toStrictEqual(loadConfig(env()));
  });

  describe('reading process.env when no environment is given', () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('uses process.env', () => {
      // Prepare
      vi.stubEnv('SHIELDWATCH_API_URL', 'https://from-process.example.com/v1/');
      vi.stubEnv('SHIELDWATCH_API_KEY', 'process-key');
      vi.stubEnv('SHIELDWATCH_API_KEY_SECRET', '');
      vi.stubEnv('SHIELDWATCH_TABLE', 'from-process');

      // Act
      const config = loadConfig();
      const store = loadStoreConfig();

      // Assess
      expect(config.apiUrl).toBe('https://from-process.example.com/v1');
      expect(store.table).toBe('from-process');
    });
  });
});

describe('whole-number settings', () => {
  const SETTINGS = [
    { variable: 'SHIELDWATCH_CONCURRENCY', field: 'concurrency', fallback: 10, min: 1, max: 256 },
    { variable: 'SHIELDWATCH_TIMEOUT_MS', field: 'timeoutMs', fallback: 5000, min: 100, max: 10_000 },
    {
      variable: 'SHIELDWATCH_MAX_BODY_BYTES',
      field: 'maxBodyBytes',
      fallback: 1_048_576,
      min: 1024,
      max: 16_777_216,
    },
    { variable: 'SHIELDWATCH_RETENTION_DAYS', field: 'retentionDays', fallback: 90, min: 1, max: 3650 },
    { variable: 'SHIELDWATCH_RETRIES', field: 'retries', fallback: 2, min: 0, max: 5 },
    { variable: 'SHIELDWATCH_ALERT_AFTER', field: 'alertAfter', fallback: 3, min: 1, max: 1000 },
    { variable: 'SHIELDWATCH_CONFIRMATIONS', field: 'confirmations', fallback: 1, min: 1, max: 100 },
    {
      variable: 'SHIELDWATCH_CYCLE_TIMEOUT_MS',
      field: 'cycleTimeoutMs',
      fallback: 30_000,
      min: 1000,
      max: 900_000,
    },
  ] as const;

  it.each(SETTINGS)('$variable defaults to $fallback', ({ field, fallback }) => {
    // Act
    const config = loadConfig(env());

    // Assess
    expect(config[field]).toBe(fallback);
  });

  it.each(
    SETTINGS.flatMap((s) => [
      { ...s, raw: String(s.min), value: s.min },
      { ...s, raw: String(s.max), value: s.max },
      { ...s, raw: ` ${s.max} `, value: s.max },
    ]),
  )('$variable accepts "$raw"', ({ variable, field, raw, value }) => {
    // Act
    const config = loadConfig(env({ [variable]: raw }));

    // Assess
    expect(config[field]).toBe(value);
  });

  it.each(
    SETTINGS.flatMap((s) =>
      [String(s.min - 1), String(s.max + 1), '-1', '2.5', '1e3', '+4', '0x10', 'ten', '12 ms'].map((raw) => ({
        ...s,
        raw,
      })),
    ),
  )('$variable refuses "$raw"', ({ variable, min, max, raw }) => {
    // Act
    const error = configError(() => loadConfig(env({ [variable]: raw })));

    // Assess
    expect(error.problems).toEqual([
      `${variable} must be a whole number from ${min} to ${max} (got "${raw.trim()}")`,
    ]);
  });

  it('keeps the time-out of one request at most 10 s (README, Configuration)', () => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_TIMEOUT_MS: '10001' })));

    // Assess
    expect(error.message).toContain('SHIELDWATCH_TIMEOUT_MS');
  });
});

describe('SHIELDWATCH_TABLE and SHIELDWATCH_NAME', () => {
  it.each(['abc', 'shieldwatch-prod', 'my_table.v2', 'A'.repeat(255)])(
    'accepts the table name %s',
    (table) => {
      // Act
      const config = loadConfig(env({ SHIELDWATCH_TABLE: table }));

      // Assess
      expect(config.table).toBe(table);
    },
  );

  it.each(['ab', 'sla/sh', 'ünï', 'A'.repeat(256)])('refuses the table name %s', (table) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_TABLE: table })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^SHIELDWATCH_TABLE must be 3 to 255 characters/);
  });

  it('takes the monitor name as it is, trimmed', () => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_NAME: '  prod watch  ' }));

    // Assess
    expect(config.monitorName).toBe('prod watch');
  });
});

describe('SHIELDWATCH_API_URL', () => {
  it.each([
    { url: 'https://api.example.com', apiUrl: 'https://api.example.com' },
    { url: 'https://api.example.com/', apiUrl: 'https://api.example.com' },
    { url: 'https://api.example.com/protect/v2', apiUrl: 'https://api.example.com/protect/v2' },
    { url: 'https://api.example.com/protect/v2/', apiUrl: 'https://api.example.com/protect/v2' },
    { url: 'https://api.example.com/protect//', apiUrl: 'https://api.example.com/protect' },
    { url: '  https://api.example.com/x/  ', apiUrl: 'https://api.example.com/x' },
    { url: 'https://api.example.com:443/', apiUrl: 'https://api.example.com' },
    { url: 'https://api.example.com:8443/base/', apiUrl: 'https://api.example.com:8443/base' },
    { url: 'HTTPS://API.Example.COM/Base', apiUrl: 'https://api.example.com/Base' },
    { url: 'https://api.example.com/?', apiUrl: 'https://api.example.com' },
    { url: 'http://localhost:8080/', apiUrl: 'http://localhost:8080' },
    { url: 'http://LOCALHOST:8080/api/', apiUrl: 'http://localhost:8080/api' },
    { url: 'http://127.0.0.1:3000', apiUrl: 'http://127.0.0.1:3000' },
    { url: 'http://127.1.2.3/', apiUrl: 'http://127.1.2.3' },
    { url: 'http://[::1]:9000/api', apiUrl: 'http://[::1]:9000/api' },
    { url: 'http://api.localhost/', apiUrl: 'http://api.localhost' },
    { url: 'http://a.b.localhost:81/', apiUrl: 'http://a.b.localhost:81' },
  ])('accepts $url as $apiUrl', ({ url, apiUrl }) => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_API_URL: url }));

    // Assess
    expect(config.apiUrl).toBe(apiUrl);
  });

  it.each([
    { url: undefined, problem: /^SHIELDWATCH_API_URL is required/ },
    { url: '', problem: /^SHIELDWATCH_API_URL is required/ },
    { url: '   ', problem: /^SHIELDWATCH_API_URL is required/ },
    { url: 'api.example.com', problem: /^SHIELDWATCH_API_URL is missing https:\/\/ at its start/ },
    { url: 'localhost:8080/api', problem: /^SHIELDWATCH_API_URL is missing https:\/\/ at its start/ },
    { url: '//api.example.com', problem: /^SHIELDWATCH_API_URL is missing https:\/\/ at its start/ },
    { url: 'https://', problem: /^SHIELDWATCH_API_URL is not a valid URL$/ },
    { url: 'http://api.example.com', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://127.0.0.1.nip.io/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://localhost.example.com/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://mylocalhost/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://0.0.0.0:8080/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://10.0.0.1/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://192.168.1.1/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'http://[::]/', problem: /^SHIELDWATCH_API_URL must use https:\/\// },
    { url: 'ftp://api.example.com/', problem: /^SHIELDWATCH_API_URL must use https:\/\/ \(got ftp:\/\/\)$/ },
    { url: 'ws://localhost/', problem: /^SHIELDWATCH_API_URL must use https:\/\/ \(got ws:\/\/\)$/ },
    {
      url: 'https://api.example.com/?token=1',
      problem: /^SHIELDWATCH_API_URL must not have a query or fragment$/,
    },
    {
      url: 'https://api.example.com/#top',
      problem: /^SHIELDWATCH_API_URL must not have a query or fragment$/,
    },
    { url: 'https://user@api.example.com/', problem: /^SHIELDWATCH_API_URL must not contain credentials/ },
    { url: 'https://:pw@api.example.com/', problem: /^SHIELDWATCH_API_URL must not contain credentials/ },
  ])('refuses $url', ({ url, problem }) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_API_URL: url })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(problem);
  });

  it('reports credentials, a query and plain http together, without quoting the URL', () => {
    // Prepare
    const url = 'http://admin:Pa55-w0rd-XYZ@api.example.com/v1?key=QUERY-SECRET-987';

    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_API_URL: url })));

    // Assess
    expect(error.problems).toHaveLength(3);
    expect(error.problems.every((p) => p.startsWith('SHIELDWATCH_API_URL '))).toBe(true);
    expect(error.message).toMatch(/must not contain credentials/);
    expect(error.message).toMatch(/must not have a query or fragment/);
    expect(error.message).toMatch(/must use https:\/\//);
    expect(error.message).not.toContain('Pa55-w0rd-XYZ');
    expect(error.message).not.toContain('QUERY-SECRET-987');
    expect(error.message).not.toContain('admin');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    { host: 'localhost', loopback: true },
    { host: 'LocalHost', loopback: true },
    { host: '127.0.0.1', loopback: true },
    { host: '127.0.0.53', loopback: true },
    { host: '127.255.255.254', loopback: true },
    { host: '::1', loopback: true },
    { host: '[::1]', loopback: true },
    { host: 'api.localhost', loopback: true },
    { host: 'a.b.LOCALHOST', loopback: true },
    { host: '127.0.0.1.nip.io', loopback: false },
    { host: '127.0.0.1.example.com', loopback: false },
    { host: 'x127.0.0.1', loopback: false },
    { host: '127.0.0', loopback: false },
    { host: '128.0.0.1', loopback: false },
    { host: '0.0.0.0', loopback: false },
    { host: '10.0.0.1', loopback: false },
    { host: '::', loopback: false },
    { host: '[::]', loopback: false },
    { host: 'localhost.example.com', loopback: false },
    { host: 'mylocalhost', loopback: false },
    { host: 'example.com', loopback: false },
    { host: '', loopback: false },
  ])('$host is loopback: $loopback', ({ host, loopback }) => {
    // Act
    const result = isLoopbackHost(host);

    // Assess
    expect(result).toBe(loopback);
  });
});

describe('the API key source', () => {
  it.each([
    {
      name: 'the key itself',
      vars: { SHIELDWATCH_API_KEY: 'abc-123' },
      source: { kind: 'env', variable: 'SHIELDWATCH_API_KEY' },
    },
    {
      name: 'the key with spaces around it',
      vars: { SHIELDWATCH_API_KEY: '  abc-123\n' },
      source: { kind: 'env', variable: 'SHIELDWATCH_API_KEY' },
    },
    {
      name: 'a secret name',
      vars: { SHIELDWATCH_API_KEY: undefined, SHIELDWATCH_API_KEY_SECRET: 'shieldwatch/api-key' },
      source: { kind: 'secret', secretId: 'shieldwatch/api-key' },
    },
    {
      name: 'a secret ARN, trimmed',
      vars: {
        SHIELDWATCH_API_KEY: undefined,
        SHIELDWATCH_API_KEY_SECRET: ' arn:aws:secretsmanager:eu-west-1:123456789012:secret:sw-key-AbCdEf ',
      },
      source: {
        kind: 'secret',
        secretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:sw-key-AbCdEf',
      },
    },
    {
      name: 'a secret with a blank key beside it',
      vars: { SHIELDWATCH_API_KEY: '   ', SHIELDWATCH_API_KEY_SECRET: 'sw-key' },
      source: { kind: 'secret', secretId: 'sw-key' },
    },
    {
      name: 'the key with an empty secret beside it',
      vars: { SHIELDWATCH_API_KEY: 'abcd', SHIELDWATCH_API_KEY_SECRET: '' },
      source: { kind: 'env', variable: 'SHIELDWATCH_API_KEY' },
    },
  ])('accepts $name', ({ vars, source }) => {
    // Act
    const config = loadConfig(env(vars));

    // Assess
    expect(config.apiKey).toStrictEqual(source);
  });

  it.each([
    {
      name: 'neither',
      vars: { SHIELDWATCH_API_KEY: undefined },
      problem: /^one of SHIELDWATCH_API_KEY \(the key\) or SHIELDWATCH_API_KEY_SECRET .* is required$/,
    },
    {
      name: 'a blank key and no secret',
      vars: { SHIELDWATCH_API_KEY: ' \t ' },
      problem: /^one of SHIELDWATCH_API_KEY \(the key\) or SHIELDWATCH_API_KEY_SECRET .* is required$/,
    },
    {
      name: 'both',
      vars: { SHIELDWATCH_API_KEY: 'abcd', SHIELDWATCH_API_KEY_SECRET: 'sw-key' },
      problem: /^SHIELDWATCH_API_KEY and SHIELDWATCH_API_KEY_SECRET are both set: set only one$/,
    },
    {
      name: 'a key shorter than 4 characters',
      vars: { SHIELDWATCH_API_KEY: 'k9x' },
      problem: /^SHIELDWATCH_API_KEY is shorter than 4 characters \(value not shown\)$/,
    },
    {
      name: 'a key with a space inside',
      vars: { SHIELDWATCH_API_KEY: 'abc def' },
      problem: /^SHIELDWATCH_API_KEY must be printable ASCII without spaces \(value not shown\)$/,
    },
    {
      name: 'a key with a line break inside',
      vars: { SHIELDWATCH_API_KEY: 'abc\r\nX-Injected: 1' },
      problem: /^SHIELDWATCH_API_KEY must be printable ASCII/,
    },
    {
      name: 'a key with non-ASCII characters',
      vars: { SHIELDWATCH_API_KEY: 'schlüssel' },
      problem: /^SHIELDWATCH_API_KEY must be printable ASCII/,
    },
    {
      name: 'a secret id with a character Secrets Manager refuses',
      vars: { SHIELDWATCH_API_KEY: undefined, SHIELDWATCH_API_KEY_SECRET: 'key#1' },
      problem: /^SHIELDWATCH_API_KEY_SECRET must be a secret name or ARN/,
    },
  ])('refuses $name', ({ vars, problem }) => {
    // Act
    const error = configError(() => loadConfig(env(vars)));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(problem);
  });

  describe('never shows the key', () => {
    const KEY = 'ZZ-leaky-Kéy-7731 with\tspaces';
    const FRAGMENTS = ['ZZ-leaky', 'leaky-K', 'Kéy-7731', '7731', 'with\tspaces'];

    it.each([
      { name: 'an invalid key alone', vars: { SHIELDWATCH_API_KEY: KEY } },
      {
        name: 'an invalid key beside a secret',
        vars: { SHIELDWATCH_API_KEY: KEY, SHIELDWATCH_API_KEY_SECRET: 'sw' },
      },
      {
        name: 'an invalid key among other problems',
        vars: {
          SHIELDWATCH_API_KEY: KEY,
          SHIELDWATCH_API_URL: `http://user:${encodeURIComponent(KEY)}@example.com/?k=${encodeURIComponent(KEY)}`,
          SHIELDWATCH_TIMEOUT_MS: 'soon',
          SHIELDWATCH_NETWORKS: 'net\u0000',
        },
      },
    ])('in the error for $name', ({ vars }) => {
      // Act
      const error = configError(() => loadConfig(env(vars)));

      // Assess
      expect(error.message).toContain('SHIELDWATCH_API_KEY');
      const visible = [
        error.message,
        String(error),
        JSON.stringify(error),
        error.stack ?? '',
        ...error.problems,
      ];
      for (const text of visible) {
        for (const fragment of FRAGMENTS) {
          expect(text).not.toContain(fragment);
          expect(text).not.toContain(encodeURIComponent(fragment));
        }
      }
    });

    it('in the loaded configuration', () => {
      // Prepare
      const key = 'ZZ-valid-secret-key-4242';

      // Act
      const config = loadConfig(env({ SHIELDWATCH_API_KEY: key }));

      // Assess
      expect(JSON.stringify(config)).not.toContain(key);
      expect(JSON.stringify(config)).not.toContain('4242');
    });
  });
});

describe('SHIELDWATCH_NETWORKS', () => {
  it.each([
    { raw: undefined, networks: [] },
    { raw: '', networks: [] },
    { raw: ' , ,, ', networks: [] },
    { raw: 'net-1', networks: ['net-1'] },
    { raw: 'net-1,net-2', networks: ['net-1', 'net-2'] },
    { raw: '  net-2 ,net-1  , ', networks: ['net-2', 'net-1'] },
    { raw: 'net/1,../admin,a.b,ünï', networks: ['net/1', '../admin', 'a.b', 'ünï'] },
    { raw: 'Net-1,net-1', networks: ['Net-1', 'net-1'] },
    { raw: 'x'.repeat(512), networks: ['x'.repeat(512)] },
  ])('reads "$raw" as $networks', ({ raw, networks }) => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_NETWORKS: raw }));

    // Assess
    expect(config.networks).toEqual(networks);
  });

  it.each([
    {
      name: 'a control character',
      raw: 'ok,bad\u0001id',
      count: 1,
      problem: /id 2: contains a control character/,
    },
    { name: 'DEL', raw: 'bad\u007F', count: 1, problem: /id 1: contains a control character \(U\+007F/ },
    {
      name: 'an id over 512 characters',
      raw: `ok,${'x'.repeat(513)}`,
      count: 1,
      problem: /control characters or over 512 characters/,
    },
    {
      name: 'two bad ids',
      raw: `a\u0000,ok,${'y'.repeat(600)}`,
      count: 2,
      problem: /id 1: contains a control character.*; "y+": control characters or over 512/,
    },
  ])('refuses $name', ({ raw, count, problem }) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_NETWORKS: raw })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^SHIELDWATCH_NETWORKS has ${count} invalid id\\(s\\): `));
    expect(error.problems[0]).toMatch(problem);
  });
});

describe('SHIELDWATCH_NETWORKS ids made only of dots', () => {
  it.each(['.', '..', '...'])('refuses "%s", which a path-normalising server would resolve', (id) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_NETWORKS: `ok,${id}` })));

    // Assess
    expect(error.problems).toEqual([
      `SHIELDWATCH_NETWORKS has 1 invalid id(s): ${JSON.stringify(id)}: only dots cannot be a path segment`,
    ]);
  });

  it('accepts ids that merely contain dots', () => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_NETWORKS: '.hidden,a..b,v1.2' }));

    // Assess
    expect(config.networks).toEqual(['.hidden', 'a..b', 'v1.2']);
  });
});

describe('SHIELDWATCH_EXPECTED_STATUS and SHIELDWATCH_REMIND_EVERY', () => {
  it.each([
    { raw: { SHIELDWATCH_EXPECTED_STATUS: 'active' }, expected: 'active', remind: undefined },
    { raw: { SHIELDWATCH_EXPECTED_STATUS: ' on ' }, expected: ' on ', remind: undefined },
    { raw: { SHIELDWATCH_EXPECTED_STATUS: '  ' }, expected: undefined, remind: undefined },
    {
      raw: { SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_REMIND_EVERY: '1h' },
      expected: 'active',
      remind: 3_600_000,
    },
    {
      raw: { SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_REMIND_EVERY: '90m' },
      expected: 'active',
      remind: 5_400_000,
    },
    {
      raw: { SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_REMIND_EVERY: '1d' },
      expected: 'active',
      remind: 86_400_000,
    },
  ])('reads $raw', ({ raw, expected, remind }) => {
    // Act
    const config = loadConfig(env(raw));

    // Assess
    expect(config.expectedStatus).toBe(expected);
    expect(config.remindEveryMs).toBe(remind);
  });

  it.each([
    {
      raw: { SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_REMIND_EVERY: '30s' },
      problem: /SHIELDWATCH_REMIND_EVERY must be/,
    },
    {
      raw: { SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_REMIND_EVERY: 'hourly' },
      problem: /SHIELDWATCH_REMIND_EVERY must be/,
    },
    { raw: { SHIELDWATCH_GROUP_BY: 'network' }, problem: /SHIELDWATCH_GROUP_BY must be rule or none/ },
    {
      raw: { SHIELDWATCH_GROUP_INTERVAL: '30s' },
      problem: /SHIELDWATCH_GROUP_INTERVAL must be .* from 1m to 1d/,
    },
    {
      raw: { SHIELDWATCH_GROUP_INTERVAL: '2d' },
      problem: /SHIELDWATCH_GROUP_INTERVAL must be .* from 1m to 1d/,
    },
  ])('refuses $raw', ({ raw, problem }) => {
    // Act
    const error = configError(() => loadConfig(env(raw)));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(problem);
  });
});

describe('SHIELDWATCH_STATUS_PATH', () => {
  it('is absent when unset', () => {
    // Act
    const config = loadConfig(env());

    // Assess
    expect(config).not.toHaveProperty('statusPath');
  });

  it.each([
    { raw: 'state', statusPath: 'state' },
    { raw: 'data.filter.state', statusPath: 'data.filter.state' },
    { raw: '  data.filter.state\t', statusPath: 'data.filter.state' },
    { raw: 'items.0.state', statusPath: 'items.0.state' },
    { raw: 'weird-key!.$value', statusPath: 'weird-key!.$value' },
  ])('accepts "$raw"', ({ raw, statusPath }) => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_STATUS_PATH: raw }));

    // Assess
    expect(config.statusPath).toBe(statusPath);
  });

  it.each([
    { raw: 'data..state', problem: /empty segment/ },
    { raw: '.state', problem: /empty segment/ },
    { raw: 'state.', problem: /empty segment/ },
    { raw: 'data. state', problem: /spaces around a segment/ },
  ])('refuses "$raw"', ({ raw, problem }) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_STATUS_PATH: raw })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^SHIELDWATCH_STATUS_PATH: status path /);
    expect(error.problems[0]).toMatch(problem);
  });
});

describe('SHIELDWATCH_FIGURE_FIELDS (issue 14.3)', () => {
  it.each([
    { raw: 'traffic.in_pps', fields: ['traffic.in_pps'] },
    { raw: ' traffic.in_pps , links.0.pps ', fields: ['traffic.in_pps', 'links.0.pps'] },
    { raw: 'a,b,c,d,e,f,g,h,i,j', fields: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'] },
  ])('accepts "$raw"', ({ raw, fields }) => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_FIGURE_FIELDS: raw }));

    // Assess
    expect(config.figureFields).toEqual(fields);
  });

  it.each([
    { raw: 'traffic..pps', problem: /empty segment/ },
    { raw: 'a,,b', problem: /field 2 is empty/ },
    { raw: 'a,b,c,d,e,f,g,h,i,j,k', problem: /lists 11 fields, more than 10/ },
    { raw: 'a.b,a.b', problem: /lists "a.b" twice/ },
    { raw: 'in pps,in_pps', problem: /would both be metric Figure\.in_pps/ },
    { raw: 'traffic. pps', problem: /spaces around a segment/ },
  ])('refuses "$raw", naming the variable', ({ raw, problem }) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_FIGURE_FIELDS: raw })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^SHIELDWATCH_FIGURE_FIELDS: /);
    expect(error.problems[0]).toMatch(problem);
  });

  it('refuses the removed SHIELDWATCH_FIGURE_METRICS, pointing to SHIELDWATCH_FIGURE_FIELDS', () => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_FIGURE_METRICS: '5' })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(
      /^SHIELDWATCH_FIGURE_METRICS is no longer a setting: .*SHIELDWATCH_FIGURE_FIELDS/,
    );
  });
});

describe('SHIELDWATCH_TOPIC_ARN', () => {
  it('is absent when unset (alerts go to the log only)', () => {
    // Act
    const config = loadConfig(env());

    // Assess
    expect(config).not.toHaveProperty('topicArn');
  });

  it.each([
    'arn:aws:sns:eu-west-1:123456789012:shieldwatch-alerts',
    'arn:aws:sns:us-east-1:000000000000:alerts_2',
    'arn:aws-cn:sns:cn-north-1:123456789012:alerts',
    'arn:aws-us-gov:sns:us-gov-west-1:123456789012:alerts',
    'arn:aws:sns:eu-west-1:123456789012:alerts.fifo',
  ])('accepts %s', (arn) => {
    // Act
    const config = loadConfig(env({ SHIELDWATCH_TOPIC_ARN: ` ${arn} ` }));

    // Assess
    expect(config.topicArn).toBe(arn);
  });

  it.each([
    'shieldwatch-alerts',
    'arn:aws:sqs:eu-west-1:123456789012:queue',
    'arn:aws:sns:eu-west-1:12345:alerts',
    'arn:aws:sns:eu-west-1:123456789012:',
    'arn:aws:sns:eu-west-1:123456789012:alerts:sub-id',
    'arn:aws:sns::123456789012:alerts',
    `arn:aws:sns:eu-west-1:123456789012:${'a'.repeat(257)}`,
  ])('refuses %s', (arn) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_TOPIC_ARN: arn })));

    // Assess
    expect(error.problems).toEqual([
      'SHIELDWATCH_TOPIC_ARN must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)',
    ]);
  });
});

describe('every problem at once', () => {
  it('reports each problem, named by its variable, in one ConfigError', () => {
    // Prepare
    const broken: Env = {
      SHIELDWATCH_API_URL: 'http://api.example.com/?x=1',
      SHIELDWATCH_NETWORKS: 'ok,bad\u0000',
      SHIELDWATCH_STATUS_PATH: 'data..state',
      SHIELDWATCH_TOPIC_ARN: 'not-an-arn',
      SHIELDWATCH_TABLE: 'x',
      SHIELDWATCH_RETENTION_DAYS: '0',
      SHIELDWATCH_CONCURRENCY: 'many',
      SHIELDWATCH_TIMEOUT_MS: '60000',
      SHIELDWATCH_MAX_BODY_BYTES: '1',
      SHIELDWATCH_RETRIES: '9',
      SHIELDWATCH_ALERT_AFTER: '0',
      SHIELDWATCH_CONFIRMATIONS: '-2',
      SHIELDWATCH_FIGURE_FIELDS: 'traffic..pps',
      SHIELDWATCH_RULES: 'pps: traffic.in_pps > lots',
      SHIELDWATCH_CYCLE_TIMEOUT_MS: '10',
    };

    // Act
    const error = configError(() => loadConfig(broken));

    // Assess
    const named = [
      'SHIELDWATCH_API_URL must not have a query',
      'SHIELDWATCH_API_URL must use https',
      'one of SHIELDWATCH_API_KEY (the key) or SHIELDWATCH_API_KEY_SECRET',
      'SHIELDWATCH_NETWORKS',
      'SHIELDWATCH_STATUS_PATH',
      'SHIELDWATCH_TOPIC_ARN',
      'SHIELDWATCH_TABLE',
      'SHIELDWATCH_RETENTION_DAYS',
      'SHIELDWATCH_CONCURRENCY',
      'SHIELDWATCH_TIMEOUT_MS',
      'SHIELDWATCH_MAX_BODY_BYTES',
      'SHIELDWATCH_RETRIES',
      'SHIELDWATCH_ALERT_AFTER',
      'SHIELDWATCH_CONFIRMATIONS',
      'SHIELDWATCH_FIGURE_FIELDS',
      'SHIELDWATCH_RULES',
      'SHIELDWATCH_CYCLE_TIMEOUT_MS',
    ];
    expect(error.problems).toHaveLength(named.length);
    for (const [i, start] of named.entries()) {
      expect(error.problems[i]).toMatch(new RegExp(`^${start.replace(/[()]/g, '\\$&')}`));
      expect(error.message).toContain(start);
    }
    expect(error.message).toMatch(/^invalid configuration \(17 problems\):\n {2}- /);
  });

  it('reports a missing URL and a missing key together', () => {
    // Act
    const error = configError(() => loadConfig({}));

    // Assess
    expect(error.problems).toHaveLength(2);
    expect(error.message).toContain('SHIELDWATCH_API_URL is required');
    expect(error.message).toContain('SHIELDWATCH_API_KEY_SECRET');
  });
});

describe('loadStoreConfig', () => {
  it('needs only the store settings', () => {
    // Act
    const store = loadStoreConfig({});

    // Assess
    expect(store).toStrictEqual({ table: 'shieldwatch', retentionDays: 90 });
  });

  it('reads the table and retention, ignoring broken monitor settings', () => {
    // Prepare
    const vars: Env = {
      SHIELDWATCH_TABLE: ' history-table ',
      SHIELDWATCH_RETENTION_DAYS: '7',
      SHIELDWATCH_API_URL: 'http://api.example.com',
      SHIELDWATCH_API_KEY: 'a b',
      SHIELDWATCH_API_KEY_SECRET: 'both',
      SHIELDWATCH_TIMEOUT_MS: 'never',
      SHIELDWATCH_TOPIC_ARN: 'nope',
    };

    // Act
    const store = loadStoreConfig(vars);

    // Assess
    expect(store).toStrictEqual({ table: 'history-table', retentionDays: 7 });
  });

  it('reports every store problem at once', () => {
    // Act
    const error = configError(() =>
      loadStoreConfig({
        SHIELDWATCH_TABLE: 'no',
        SHIELDWATCH_RETENTION_DAYS: '3651',
        SHIELDWATCH_API_URL: 'x',
      }),
    );

    // Assess
    expect(error.problems).toHaveLength(2);
    expect(error.problems[0]).toMatch(/^SHIELDWATCH_TABLE /);
    expect(error.problems[1]).toBe(
      'SHIELDWATCH_RETENTION_DAYS must be a whole number from 1 to 3650 (got "3651")',
    );
  });
});

describe('control characters and whitespace in URLs and ids (issue 15.2)', () => {
  it.each([
    { name: 'a newline that a URL parser drops', url: 'https://api.example.com\n.attacker.test/v1' },
    { name: 'a tab that a URL parser drops', url: 'https://api.exam\tple.com.attacker.test' },
    { name: 'a carriage return before the path', url: 'https://api.example.com\r/v1' },
    { name: 'a NUL at the start', url: '\u0000https://api.example.com' },
    { name: 'a trailing newline', url: 'https://api.example.com/v1\n' },
    { name: 'a C1 control character', url: 'https://api.example.com\u0085/v1' },
    { name: 'a space inside', url: 'https://api.example.com /v1' },
    { name: 'a no-break space inside', url: 'https://api.example.com\u00A0.attacker.test' },
    { name: 'a zero-width space', url: 'https://api.example\u200B.com' },
    { name: 'a soft hyphen, which host parsing drops', url: 'https://api.exam\u00ADple.com' },
    { name: 'a right-to-left override', url: 'https://api.example.com/\u202Etset.rekcatta' },
  ])('refuses an API URL with $name, naming the variable without the value', ({ url }) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_API_URL: url })));

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(
      /^SHIELDWATCH_API_URL contains (a control character|whitespace|an invisible formatting character) \(U\+[0-9A-F]{4} at character \d+\) \(value not shown\)$/,
    );
    expect(error.message).not.toContain('attacker');
    expect(error.message).not.toContain('example');
  });

  it.each([
    { variable: 'SHIELDWATCH_TABLE', value: 'shield\nwatch' },
    { variable: 'SHIELDWATCH_TABLE', value: 'shieldwatch\t' },
    { variable: 'SHIELDWATCH_TABLE', value: 'shield watch' },
    { variable: 'SHIELDWATCH_TOPIC_ARN', value: 'arn:aws:sns:eu-west-1:123456789012:alerts\n' },
    { variable: 'SHIELDWATCH_TOPIC_ARN', value: 'arn:aws:sns:eu-west-1:123456789012:my alerts' },
    { variable: 'SHIELDWATCH_TOPIC_ARN', value: 'arn:aws:sns:eu-west-1:123456789012:alerts\u200D' },
  ])('refuses $variable with $value', ({ variable, value }) => {
    // Act
    const error = configError(() => loadConfig(env({ [variable]: value })));

    // Assess
    expect(error.problems).toEqual([expect.stringMatching(new RegExp(`^${variable} contains `))]);
  });

  it.each([
    'shieldwatch/api-key\n',
    'shieldwatch/api-key\r',
    'my secret',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:\u0000sw',
  ])('refuses the secret id %j without showing it', (secretId) => {
    // Act
    const error = configError(() =>
      loadConfig(env({ SHIELDWATCH_API_KEY: undefined, SHIELDWATCH_API_KEY_SECRET: secretId })),
    );

    // Assess
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^SHIELDWATCH_API_KEY_SECRET contains .*\(value not shown\)$/);
    expect(error.message).not.toContain('secret');
  });

  it.each([
    {
      name: 'a newline',
      raw: 'net-1,net\n2',
      problem: /id 2: contains a control character \(U\+000A at character 4\)/,
    },
    {
      name: 'a trailing tab',
      raw: 'net-1\t',
      problem: /"net-1": contains a control character \(U\+0009 at character 6\)/,
    },
    {
      name: 'a C1 control character',
      raw: 'net\u009B1',
      problem: /id 1: contains a control character \(U\+009B/,
    },
    {
      name: 'a space inside',
      raw: 'office 1',
      problem: /"office 1": contains whitespace \(U\+0020 at character 7\)/,
    },
    { name: 'an ideographic space', raw: 'a\u3000b', problem: /contains whitespace \(U\+3000/ },
    {
      name: 'a bidirectional override',
      raw: 'net\u202E1',
      problem: /id 1: contains an invisible formatting/,
    },
  ])('refuses a network id with $name', ({ raw, problem }) => {
    // Act
    const error = configError(() => loadConfig(env({ SHIELDWATCH_NETWORKS: raw })));

    // Assess
    expect(error.problems).toEqual([expect.stringMatching(/^SHIELDWATCH_NETWORKS has 1 invalid id\(s\): /)]);
    expect(error.problems[0]).toMatch(problem);
  });

  it('still trims ordinary spaces around URLs and ids', () => {
    // Act
    const config = loadConfig(
      env({ SHIELDWATCH_API_URL: '  https://api.example.com/v1  ', SHIELDWATCH_NETWORKS: ' a , b ' }),
    );

    // Assess
    expect(config.apiUrl).toBe('https://api.example.com/v1');
    expect(config.networks).toEqual(['a', 'b']);
  });
});

describe('configWarnings', () => {
  it.each([
    {
      name: 'SHIELDWATCH_NETWROKS',
      warning:
        'SHIELDWATCH_NETWROKS is not a SHIELDWATCH_* setting and is ignored (did you mean SHIELDWATCH_NETWORKS?)',
    },
    {
      name: 'SHIELDWATCH_APIKEY',
      warning:
        'SHIELDWATCH_APIKEY is not a SHIELDWATCH_* setting and is ignored (did you mean SHIELDWATCH_API_KEY?)',
    },
    {
      name: 'SHIELDWATCH_TOPIC',
      warning:
        'SHIELDWATCH_TOPIC is not a SHIELDWATCH_* setting and is ignored (did you mean SHIELDWATCH_TOPIC_ARN?)',
    },
    {
      name: 'shieldwatch_api_url',
      warning:
        'shieldwatch_api_url is not a SHIELDWATCH_* setting and is ignored (did you mean SHIELDWATCH_API_URL?)',
    },
    {
      name: 'SHIELDWATCH_COLOUR_SCHEME',
      warning: 'SHIELDWATCH_COLOUR_SCHEME is not a SHIELDWATCH_* setting and is ignored',
    },
  ])('warns about $name', ({ name, warning }) => {
    // Act
    const warnings = configWarnings(env({ [name]: 'x' }));

    // Assess
    expect(warnings).toEqual([warning]);
  });

  it('says nothing about known settings, other variables or a clean value', () => {
    // Act
    const warnings = configWarnings(
      env({
        SHIELDWATCH_NETWORKS: 'a',
        SHIELDWATCH_EXPECTED_STATUS: 'active',
        SHIELDWATCH_STATUS_PATH: 'data.state',
        SHIELDWATCH_STORE_IDLE_MS: '1000',
        PATH: '/usr/bin',
        AWS_REGION: 'eu-west-1',
      }),
    );

    // Assess
    expect(warnings).toEqual([]);
  });

  it.each([
    {
      variable: 'SHIELDWATCH_EXPECTED_STATUS',
      value: 'active ',
      warning:
        'SHIELDWATCH_EXPECTED_STATUS has whitespace around it, which is compared too: a status without it never matches',
    },
    {
      variable: 'SHIELDWATCH_EXPECTED_STATUS',
      value: '\tactive',
      warning:
        'SHIELDWATCH_EXPECTED_STATUS has whitespace around it, which is compared too: a status without it never matches',
    },
    {
      variable: 'SHIELDWATCH_STATUS_PATH',
      value: ' data.state',
      warning: 'SHIELDWATCH_STATUS_PATH has whitespace around it, which is ignored',
    },
  ])('warns about whitespace around $variable ($value)', ({ variable, value, warning }) => {
    // Act
    const warnings = configWarnings(env({ [variable]: value }));

    // Assess
    expect(warnings).toEqual([warning]);
    expect(loadConfig(env({ [variable]: value }))).toBeDefined();
  });
});

describe('SHIELDWATCH_RULES (issue 10)', () => {
  it('parses the rules into the config', () => {
    // Act
    const config = loadConfig(
      env({
        SHIELDWATCH_NETWORKS: 'n1,n2',
        SHIELDWATCH_RULES:
          'pps: traffic.in_pps > 50k for 3\nattack: attack.active == true on n2; surge: traffic.in_pps > 3x baseline',
      }),
    );

    // Assess
    expect(config.rules.map((rule) => [rule.name, rule.threshold, rule.forCycles, rule.networks])).toEqual([
      ['pps', { kind: 'number', value: 50_000 }, 3, undefined],
      ['attack', { kind: 'boolean', value: true }, 1, ['n2']],
      ['surge', { kind: 'baseline', factor: 3 }, 1, undefined],
    ]);
  });

  it('names the variable, the rule and what is wrong, for every bad rule at once', () => {
    // Act
    const error = configError(() =>
      loadConfig(
        env({ SHIELDWATCH_NETWORKS: 'n1', SHIELDWATCH_RULES: 'pps: a > lots; flag: b > true; ok: c < 1' }),
      ),
    );

    // Assess
    expect(error.problems).toEqual([
      expect.stringMatching(/^SHIELDWATCH_RULES: rule "pps": the value "lots" is not a number/),
      'SHIELDWATCH_RULES: rule "flag": true and false are compared with == or !=, not >',
    ]);
  });

  it('refuses an "on" network that is not configured', () => {
    // Act
    const error = configError(() =>
      loadConfig(env({ SHIELDWATCH_NETWORKS: 'n1', SHIELDWATCH_RULES: 'pps: a > 1 on n1,n7' })),
    );

    // Assess
    expect(error.problems).toEqual([
      'SHIELDWATCH_RULES: rule "pps": "on" names "n7", not among the configured networks',
    ]);
  });
});
