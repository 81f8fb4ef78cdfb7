/**
 * The catalogue of shieldwatch's settings: every `SHIELDWATCH_*` variable once, with its CDK context key,
 * meaning, default and, for whole numbers, its range. The env loader (`config.ts`), the CDK context check
 * (`lib/context.ts`) and the CLI's "did you mean" read the names and ranges from here, so a setting's
 * name is written in this one file of `lambda/`. README.md, Configuration, and docs/deploy.md, Deploy, lists them for people.
 */
import { nearest } from './core/nearest.ts';

/** Range and default of a whole-number setting, the same for the variable and its context key. */
export interface WholeNumberRange {
  readonly min: number;
  readonly max: number;
  readonly default: number;
  /** What one unit is, for messages: `days`, `cycles`, ... */
  readonly unit: string;
}

/** One setting. */
export interface SettingSpec {
  /** The environment variable, read by the Lambda and the CLI. */
  readonly env: `SHIELDWATCH_${string}`;
  /** The CDK context key that sets it for the deployed function, when there is one. */
  readonly context?: string;
  /** What it is for, in one line. */
  readonly meaning: string;
  /** The default, as README.md, Configuration, states it. */
  readonly default: string;
  /** Whole-number settings only: range and default, shared by the env loader and the context check. */
  readonly range?: WholeNumberRange;
  /** Who reads it: `monitor` the poll cycle (Lambda and CLI), `cli` the CLI alone. */
  readonly scope: 'monitor' | 'cli';
  /**
   * How the value is taken: `trimmed` (surrounding whitespace dropped; the default), `exact` (compared as
   * text as it is, so surrounding whitespace is almost certainly a mistake), `secret` (never shown).
   */
  readonly text?: 'trimmed' | 'exact' | 'secret';
  /**
   * Names a host, a resource or an id: control characters and whitespace are refused before it is
   * parsed, because URL parsers silently drop some of them (a newline can change the host).
   */
  readonly identifier?: boolean;
}

/** Every setting, by the name the code uses for it. */
export const SETTINGS = {
  apiUrl: {
    env: 'SHIELDWATCH_API_URL',
    context: 'apiUrl',
    meaning: 'base URL of the protection API; https:// required, http:// only for loopback hosts',
    default: 'required',
    scope: 'monitor',
    identifier: true,
  },
  apiKey: {
    env: 'SHIELDWATCH_API_KEY',
    meaning: 'the API key itself (local use)',
    default: 'one of the key or its secret is required',
    scope: 'monitor',
    text: 'secret',
  },
  apiKeySecret: {
    env: 'SHIELDWATCH_API_KEY_SECRET',
    context: 'apiKeySecretName',
    meaning: 'Secrets Manager name or ARN of the API key',
    default: 'one of the key or its secret is required',
    scope: 'monitor',
    identifier: true,
  },
  networks: {
    env: 'SHIELDWATCH_NETWORKS',
    context: 'networks',
    meaning: 'comma-separated network ids; empty means filter only',
    default: 'empty',
    scope: 'monitor',
    identifier: true,
  },
  statusPath: {
    env: 'SHIELDWATCH_STATUS_PATH',
    context: 'statusPath',
    meaning: 'dot path to the status in the filter-status body',
    default: 'the well-known paths',
    scope: 'monitor',
    text: 'exact',
  },
  table: {
    env: 'SHIELDWATCH_TABLE',
    meaning: 'DynamoDB table name',
    default: 'shieldwatch',
    scope: 'monitor',
    identifier: true,
  },
  topicArn: {
    env: 'SHIELDWATCH_TOPIC_ARN',
    meaning: 'SNS topic for alerts; unset: alerts go to the log or the terminal only',
    default: 'unset',
    scope: 'monitor',
    identifier: true,
  },
  concurrency: {
    env: 'SHIELDWATCH_CONCURRENCY',
    context: 'concurrency',
    meaning: 'most API requests in flight at once',
    default: '10',
    range: { min: 1, max: 256, default: 10, unit: 'requests in flight' },
    scope: 'monitor',
  },
  timeoutMs: {
    env: 'SHIELDWATCH_TIMEOUT_MS',
    context: 'requestTimeoutMs',
    meaning: "one request attempt's time-out in milliseconds",
    default: '5000',
    range: { min: 100, max: 10_000, default: 5000, unit: 'milliseconds' },
    scope: 'monitor',
  },
  maxBodyBytes: {
    env: 'SHIELDWATCH_MAX_BODY_BYTES',
    meaning: 'largest response body read, in bytes',
    default: '1048576',
    range: { min: 1024, max: 16_777_216, default: 1_048_576, unit: 'bytes' },
    scope: 'monitor',
  },
  retentionDays: {
    env: 'SHIELDWATCH_RETENTION_DAYS',
    context: 'retentionDays',
    meaning: 'snapshot time-to-live in days',
    default: '90',
    range: { min: 1, max: 3650, default: 90, unit: 'days' },
    scope: 'monitor',
  },
  retries: {
    env: 'SHIELDWATCH_RETRIES',
    meaning: 'extra attempts after a transport error, 5xx or 429, within the cycle deadline',
    default: '2',
    range: { min: 0, max: 5, default: 2, unit: 'retries' },
    scope: 'monitor',
  },
  alertAfter: {
    env: 'SHIELDWATCH_ALERT_AFTER',
    context: 'alertAfter',
    meaning: 'cycles in a row before an "unreachable" or "status unreadable" alert',
    default: '3',
    range: { min: 1, max: 1000, default: 3, unit: 'cycles' },
    scope: 'monitor',
  },
  confirmations: {
    env: 'SHIELDWATCH_CONFIRMATIONS',
    context: 'confirmations',
    meaning: 'cycles in a row a new status must be seen before it is a change',
    default: '1',
    range: { min: 1, max: 100, default: 1, unit: 'cycles' },
    scope: 'monitor',
  },
  expectedStatus: {
    env: 'SHIELDWATCH_EXPECTED_STATUS',
    context: 'expectedStatus',
    meaning: 'the status the filter should be in, compared exactly',
    default: 'unset',
    scope: 'monitor',
    text: 'exact',
  },
  remindEvery: {
    env: 'SHIELDWATCH_REMIND_EVERY',
    context: 'remindEvery',
    meaning:
      "reminder interval of every open, unacknowledged incident: the status away from the expected one, the API's, a blind spot's, a rule's across networks (1m to 30d)",
    default: 'unset: no reminders',
    scope: 'monitor',
  },
  groupBy: {
    env: 'SHIELDWATCH_GROUP_BY',
    context: 'groupBy',
    meaning:
      '`rule`: the networks on which one rule triggers join one incident (incident.opened, .updated, .resolved); ' +
      '`none`: one alert per network (docs/alerts.md, Incidents)',
    default: 'rule',
    scope: 'monitor',
  },
  groupInterval: {
    env: 'SHIELDWATCH_GROUP_INTERVAL',
    context: 'groupInterval',
    meaning: 'least time between two alerts announcing networks that joined an open incident (1m to 1d)',
    default: '5m',
    scope: 'monitor',
  },
  escalateAfter: {
    env: 'SHIELDWATCH_ESCALATE_AFTER',
    context: 'escalateAfter',
    meaning:
      'ages of an open, unacknowledged incident at which it escalates one stage, comma-separated and ' +
      'increasing, each 1m to 7d, e.g. `10m,30m` (docs/acknowledge.md)',
    default: 'unset: no escalation',
    scope: 'monitor',
  },
  ackUrl: {
    env: 'SHIELDWATCH_ACK_URL',
    meaning:
      "the acknowledge function's URL, put with a signed token into alerts that open or remind of an " +
      'incident (set by the stack; docs/acknowledge.md)',
    default: 'unset: no acknowledge link',
    scope: 'monitor',
    identifier: true,
  },
  ackSecret: {
    env: 'SHIELDWATCH_ACK_SECRET',
    meaning: 'Secrets Manager name or ARN of the key that signs acknowledge links (set by the stack)',
    default: 'unset: no acknowledge link',
    scope: 'monitor',
    identifier: true,
  },
  figureFields: {
    env: 'SHIELDWATCH_FIGURE_FIELDS',
    context: 'figureFields',
    meaning:
      "comma-separated dot paths of numeric fields of each network's body sent to CloudWatch as metrics by " +
      'the Lambda, at most 10 (`shieldwatch check` suggests them)',
    default: 'empty: no figure metrics',
    scope: 'monitor',
  },
  figureUnits: {
    env: 'SHIELDWATCH_FIGURE_UNITS',
    meaning:
      "units of network figures in the report's charts where the field's name says none, `PATH=UNIT,...`, " +
      'e.g. `traffic.in=pps,traffic.vol=B/s` (docs/report.md)',
    default: 'from the names: pps, bps, B/s',
    scope: 'cli',
  },
  rules: {
    env: 'SHIELDWATCH_RULES',
    context: 'rules',
    meaning:
      "traffic rules on each network's real-time body, `NAME: PATH OP VALUE [for N] [on ID,...]`, one per line " +
      'or separated by `;`, at most 20 (docs/rules.md)',
    default: 'empty: no rules',
    scope: 'monitor',
  },
  maintenance: {
    env: 'SHIELDWATCH_MAINTENANCE',
    context: 'maintenance',
    meaning:
      'maintenance windows, a JSON list of `{"start","for","repeat","tz","event","reason","notify"}`: silences ' +
      'planned ahead, once or repeating, in an IANA zone (docs/silences.md)',
    default: 'empty: none',
    scope: 'monitor',
  },
  digest: {
    env: 'SHIELDWATCH_DIGEST',
    context: 'digest',
    meaning:
      '`off`, `daily` or `weekly` (Mondays): the deployed stack publishes the period at a glance to the alert ' +
      'topic as `monitor.digest`, once per period (CONTRACT §19, docs/digest.md)',
    default: 'off',
    scope: 'monitor',
  },
  digestAt: {
    env: 'SHIELDWATCH_DIGEST_AT',
    context: 'digestAt',
    meaning: 'when the digest is due, `HH:MM` (24-hour) in `digestTz`; the period ends then',
    default: '08:00',
    scope: 'monitor',
  },
  digestTz: {
    env: 'SHIELDWATCH_DIGEST_TZ',
    context: 'digestTz',
    meaning: 'the IANA zone of `digestAt`, e.g. `Europe/Berlin` (daylight saving time followed)',
    default: 'UTC',
    scope: 'monitor',
  },
  pollEvery: {
    env: 'SHIELDWATCH_POLL_EVERY',
    context: 'pollEvery',
    meaning:
      'how often the deployed monitor polls, `10s` to `60s` dividing a minute: one cycle per slot of each ' +
      'scheduled minute, per shard (CONTRACT §18; needs the schedule `rate(1 minute)`)',
    default: '60s',
    scope: 'monitor',
  },
  cycleTimeoutMs: {
    env: 'SHIELDWATCH_CYCLE_TIMEOUT_MS',
    meaning: 'longest a CLI cycle may take, in milliseconds',
    default: '30000',
    range: { min: 1000, max: 900_000, default: 30_000, unit: 'milliseconds' },
    scope: 'monitor',
  },
  monitorName: {
    env: 'SHIELDWATCH_NAME',
    meaning: 'name shown in alert subjects and SMS',
    default: 'shieldwatch',
    scope: 'monitor',
  },
  envFile: {
    env: 'SHIELDWATCH_ENV_FILE',
    meaning: 'the settings file the CLI reads instead of ./shieldwatch.env',
    default: 'shieldwatch.env',
    scope: 'cli',
  },
  stack: {
    env: 'SHIELDWATCH_STACK',
    meaning: 'the deployed stack whose table, topic and region the CLI uses (as --stack NAME)',
    default: 'unset',
    scope: 'cli',
  },
  storeIdleMs: {
    env: 'SHIELDWATCH_STORE_IDLE_MS',
    meaning: "how long the embedded store's server waits idle before it stops, in milliseconds",
    default: '600000',
    scope: 'cli',
  },
  storeDir: {
    env: 'SHIELDWATCH_STORE_DIR',
    meaning: "the store server's directory when started by hand without --dir (the CLI passes --dir)",
    default: 'unset (the CLI uses .shieldwatch)',
    scope: 'cli',
  },
} as const satisfies Record<string, SettingSpec>;

/**
 * Settings that are gone, with what replaces them: setting one is a configuration error that says so, rather
 * than a value silently ignored.
 */
export const REMOVED_SETTINGS = [
  {
    env: 'SHIELDWATCH_FIGURE_METRICS',
    context: 'figureMetrics',
    instead:
      'figure metrics are no longer the first N numeric fields: choose them by path with ' +
      'SHIELDWATCH_FIGURE_FIELDS (context figureFields), e.g. traffic.in_pps,traffic.in_bps; ' +
      '`shieldwatch check` lists the candidate paths',
  },
] as const;

/** The name the code uses for a setting. */
export type SettingId = keyof typeof SETTINGS;

/** Prefix of every setting's variable. */
export const SETTING_PREFIX = 'SHIELDWATCH_';

/** Every setting's variable name, in catalogue order. */
export const SETTING_ENV_NAMES: readonly string[] = Object.values(SETTINGS).map((s) => s.env);

/** The range of a whole-number setting. */
export function rangeOf(
  id: { [K in SettingId]: (typeof SETTINGS)[K] extends { range: WholeNumberRange } ? K : never }[SettingId],
): WholeNumberRange {
  return SETTINGS[id].range;
}

/** A variable under the settings' prefix that is not a setting, and the setting it was probably meant to be. */
export interface UnknownSetting {
  readonly name: string;
  readonly suggestion?: string;
}

/**
 * Variables that look like settings but are none (any case of the `SHIELDWATCH_` prefix), in name order:
 * a typo such as `SHIELDWATCH_NETWROKS` would otherwise be ignored without a word.
 */
export function unknownSettings(env: Readonly<Record<string, string | undefined>>): UnknownSetting[] {
  const known = new Set([...SETTING_ENV_NAMES, ...REMOVED_SETTINGS.map((removed) => removed.env)]);
  return Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith(SETTING_PREFIX) && !known.has(name))
    .sort()
    .map((name) => {
      const suggestion = nearest(name, SETTING_ENV_NAMES, SETTING_PREFIX);
      return suggestion === undefined ? { name } : { name, suggestion };
    });
}

/** Values of settings by the name the code uses for them; a list is joined with commas. */
export type SettingValues = { readonly [K in SettingId]?: string | number | readonly string[] | undefined };

/**
 * The environment that sets these settings, in catalogue order: each value that is set under its
 * variable's name, as text. The stack builds the function's environment with it, so that the variables'
 * names are written here only.
 */
export function settingsEnvironment(values: SettingValues): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(SETTINGS) as SettingId[]).flatMap((id) => {
      const value = values[id];
      if (value === undefined) return [];
      return [[SETTINGS[id].env, typeof value === 'object' ? value.join(',') : String(value)]];
    }),
  );
}
