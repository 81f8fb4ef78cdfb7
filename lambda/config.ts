import { hiddenCharacterProblem } from './core/alerts/hidden-characters.ts';
import { parseFigureFields } from './core/detect/figures.ts';
import { parseStatusPath } from './core/detect/status.ts';
import { parseDuration } from './core/duration.ts';
import { type EscalationSchedule, parseEscalateAfter } from './core/incidents/escalation.ts';
import {
  DEFAULT_GROUP_INTERVAL_MS,
  type GroupBy,
  MAX_GROUP_INTERVAL_MS,
  MIN_GROUP_INTERVAL_MS,
} from './core/incidents/incidents.ts';
import { networkIdProblem } from './core/network-id.ts';
import { POLL_EVERY_DEFAULT_MS, parsePollEvery } from './core/poll-slots.ts';
import type { Rule } from './core/rules/rule-types.ts';
import { parseRules, ruleNetworkProblems } from './core/rules/rules.ts';
import { parseMaintenance } from './core/silences/maintenance-config.ts';
import type { WindowRequest } from './core/silences/maintenance-window.ts';
import {
  REMOVED_SETTINGS,
  rangeOf,
  SETTING_PREFIX,
  SETTINGS,
  type SettingId,
  unknownSettings,
} from './settings.ts';

const S = SETTINGS;

/** Shortest API key accepted (see {@link ApiKeySource}). */
export const MIN_KEY_LENGTH = 4;

/** Where the API key comes from. The key itself is never part of the config object. */
export type ApiKeySource =
  | { readonly kind: 'env'; readonly variable: typeof SETTINGS.apiKey.env }
  | { readonly kind: 'secret'; readonly secretId: string };

/** Settings needed to read and write the history table. */
export interface StoreConfig {
  /** DynamoDB table name. @default 'shieldwatch' */
  readonly table: string;
  /** Snapshot time-to-live in days. @default 90 */
  readonly retentionDays: number;
}

/** The validated configuration of one monitor, shared by the Lambda and the CLI. */
export interface MonitorConfig extends StoreConfig {
  /** Base URL of the protection API without a trailing slash. */
  readonly apiUrl: string;
  readonly apiKey: ApiKeySource;
  /** Network ids to poll, in the configured order, without duplicates. */
  readonly networks: readonly string[];
  /** Dot path to the status in the filter-status body; unset means the documented fallbacks. */
  readonly statusPath?: string;
  /** SNS topic for alerts; unset means alerts go to the log / terminal only. */
  readonly topicArn?: string;
  /** Most API requests in flight at once. @default 10 */
  readonly concurrency: number;
  /** One request attempt's time-out in ms. @default 5000 */
  readonly timeoutMs: number;
  /** Largest response body read, in bytes. @default 1048576 */
  readonly maxBodyBytes: number;
  /** Extra attempts for transport errors, 5xx and 429 within the cycle's deadline. @default 2 */
  readonly retries: number;
  /** Cycles in a row before an incident alert (unreachable, unreadable status). @default 3 */
  readonly alertAfter: number;
  /** Cycles in a row a new status must be seen before it is a change. @default 1 */
  readonly confirmations: number;
  /**
   * Dot paths of the numeric fields of each network's body sent as CloudWatch metrics by the Lambda, one
   * metric per field and network. @default [] (no figure metrics)
   */
  readonly figureFields: readonly string[];
  /**
   * Traffic rules on each network's real-time body (docs/rules.md); their `on` networks are among
   * {@link networks}. @default [] (no rules)
   */
  readonly rules: readonly Rule[];
  /** Longest a CLI cycle may take, in ms (the Lambda uses its remaining time). @default 30000 */
  readonly cycleTimeoutMs: number;
  /** Name shown in alert subjects. @default 'shieldwatch' */
  readonly monitorName: string;
  /** The status things should be in; changes away from it are `high`, back to it `resolved`. */
  readonly expectedStatus?: string;
  /** Reminder interval in ms of every open incident (the status away from `expectedStatus`, a rule's). */
  readonly remindEveryMs?: number;
  /** How rule alerts are grouped (docs/design/incidents.md). @default 'rule' */
  readonly groupBy: GroupBy;
  /** Least time between two alerts of an incident's joiners, in ms. @default 300000 */
  readonly groupIntervalMs: number;
  /** How often the deployed monitor polls within each scheduled minute, ms (CONTRACT §18). @default 60000 */
  readonly pollEveryMs?: number;
  /** Ages in ms at which an open, unacknowledged incident escalates (docs/acknowledge.md). @default unset: none */
  readonly escalateAfterMs?: EscalationSchedule;
  /**
   * The acknowledge link in alerts (docs/acknowledge.md): the function's URL and the secret holding the key
   * that signs its tokens (never the key). Both set, or neither.
   */
  readonly ackLink?: { readonly url: string; readonly secretId: string };
  /** Maintenance windows declared in configuration (docs/silences.md), checked. @default [] */
  readonly maintenance?: readonly WindowRequest[];
}

/** Every problem of a configuration, each naming its variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(
      `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

/**
 * Reads one part of a configuration, its problems collected in `problems` instead of thrown, so that a loader
 * made of several parts reports every problem at once: undefined when that part had problems.
 */
export function collectingProblems(problems: string[]): <T>(read: () => T) => T | undefined {
  return (read) => {
    try {
      return read();
    } catch (error) {
      if (error instanceof ConfigError) problems.push(...error.problems);
      else throw error;
      return undefined;
    }
  };
}

type Env = Readonly<Record<string, string | undefined>>;

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

/** True for hosts that never leave this machine: `localhost`, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host) || host.endsWith('.localhost');
}

function read(env: Env, id: SettingId): string | undefined {
  const value = env[S[id].env]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Reads a setting that names a host, resource or id, refusing control characters and whitespace before
 * anything parses it (see {@link hiddenCharacterProblem}); the value is not shown.
 */
function readIdentifier(env: Env, id: SettingId, problems: string[]): string | undefined {
  const raw = env[S[id].env];
  const problem = raw === undefined ? undefined : hiddenCharacterProblem(raw);
  if (problem !== undefined) {
    problems.push(`${S[id].env} ${problem} (value not shown)`);
    return undefined;
  }
  return read(env, id);
}

function integer(env: Env, id: Parameters<typeof rangeOf>[0], problems: string[]): number {
  const { min, max, default: fallback } = rangeOf(id);
  const raw = read(env, id);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${S[id].env} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 40)}")`);
    return fallback;
  }
  return Number(raw);
}

/** Reads only the store settings: enough for commands that read history. Throws {@link ConfigError}. */
export function loadStoreConfig(env: Env = process.env): StoreConfig {
  const problems: string[] = [];
  const store = storeSettings(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return store;
}

function storeSettings(env: Env, problems: string[]): StoreConfig {
  const before = problems.length;
  const table = readIdentifier(env, 'table', problems) ?? S.table.default;
  if (problems.length === before && !/^[A-Za-z0-9_.-]{3,255}$/.test(table)) {
    problems.push(`${S.table.env} must be 3 to 255 characters of A-Z, a-z, 0-9, "_", "-" or "."`);
  }
  const retentionDays = integer(env, 'retentionDays', problems);
  return { table, retentionDays };
}

/** Reads only the network list (`shieldwatch backtest`: which networks the rules watch). Throws {@link ConfigError}. */
export function loadNetworksConfig(env: Env = process.env): string[] {
  const problems: string[] = [];
  const networks = networkSetting(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return networks;
}

/** Settings needed to send an alert (the `test-alert` command). */
export interface AlertConfig {
  readonly topicArn?: string;
  readonly monitorName: string;
}

/** Reads only the alert settings. Throws {@link ConfigError}. */
export function loadAlertConfig(env: Env = process.env): AlertConfig {
  const problems: string[] = [];
  const topicArn = topicSetting(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...(topicArn === undefined ? {} : { topicArn }),
    monitorName: read(env, 'monitorName') ?? S.monitorName.default,
  };
}

/**
 * Parses a reminder interval as the reminder setting accepts it: a whole number and a unit s, m, h
 * or d (`30m`, `1h`, `1d`), from 1m to 30d. Returns milliseconds, or undefined for anything else.
 * Pure, so that the CDK context check accepts exactly what the function does.
 */
export function parseRemindEveryMs(text: string): number | undefined {
  const ms = parseDuration(text, ['s', 'm', 'h', 'd']);
  return ms !== undefined && ms >= 60_000 && ms <= 30 * 86_400_000 ? ms : undefined;
}

function expectationSettings(
  env: Env,
  problems: string[],
): { expectedStatus?: string; remindEveryMs?: number } {
  // The expected status is compared exactly, so it is not trimmed; only blank means unset.
  const raw = env[S.expectedStatus.env];
  const expectedStatus = raw !== undefined && raw.trim() !== '' ? raw : undefined;
  const remind = read(env, 'remindEvery');
  if (remind === undefined) return expectedStatus === undefined ? {} : { expectedStatus };
  const ms = parseRemindEveryMs(remind);
  if (ms === undefined) {
    problems.push(
      `${S.remindEvery.env} must be a duration like 30m, 1h or 1d, from 1m to 30d (got "${remind.slice(0, 40)}")`,
    );
  }
  // Without an expected status only incidents (a rule's, the API's) are reminded of: no status is "away".
  return {
    ...(expectedStatus === undefined ? {} : { expectedStatus }),
    ...(ms === undefined ? {} : { remindEveryMs: ms }),
  };
}

function apiUrlSetting(env: Env, problems: string[]): string {
  const name = S.apiUrl.env;
  const before = problems.length;
  const raw = readIdentifier(env, 'apiUrl', problems);
  if (raw === undefined) {
    if (problems.length === before) {
      problems.push(`${name} is required (the base URL of the protection API, https://...)`);
    }
    return '';
  }
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw)) {
    problems.push(`${name} is missing https:// at its start (e.g. https://api.example.com)`);
    return '';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${name} is not a valid URL`);
    return '';
  }
  if (url.username !== '' || url.password !== '') {
    problems.push(`${name} must not contain credentials (use ${S.apiKey.env})`);
  }
  if (url.search !== '' || url.hash !== '') {
    problems.push(`${name} must not have a query or fragment`);
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) {
      problems.push(
        `${name} must use https:// (http:// is allowed only for loopback hosts: localhost, *.localhost, 127.0.0.0/8, ::1)`,
      );
    }
  } else if (url.protocol !== 'https:') {
    problems.push(`${name} must use https:// (got ${url.protocol}//)`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** A complete secret ARN: the name, then `-` and the six characters Secrets Manager adds. */
export const COMPLETE_SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}-[A-Za-z0-9]{6}$/;

/** Why an ARN that is not a complete secret ARN is refused, for the loader and synth alike. */
export const PARTIAL_SECRET_ARN_PROBLEM =
  'expected the secret name (e.g. shieldwatch/api-key) or its complete ARN ' +
  '(arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-AbCdEf, ending in the six characters Secrets Manager ' +
  'adds); a partial ARN is ambiguous, as Secrets Manager may take its end for that suffix';

function apiKeySetting(env: Env, problems: string[]): ApiKeySource {
  const keyName = S.apiKey.env;
  const secretName = S.apiKeySecret.env;
  const key = env[keyName];
  const before = problems.length;
  const secretId = readIdentifier(env, 'apiKeySecret', problems);
  const secretSet = secretId !== undefined || problems.length > before;
  const hasKey = key !== undefined && key.trim() !== '';
  if (hasKey && secretSet) {
    problems.push(`${keyName} and ${secretName} are both set: set only one`);
  } else if (!hasKey && !secretSet) {
    problems.push(`one of ${keyName} (the key) or ${secretName} (a Secrets Manager name or ARN) is required`);
  }
  // The key goes into an HTTP header: refuse what would break or split it, without echoing it.
  if (hasKey && !/^[\x21-\x7E]+$/.test(key.trim())) {
    problems.push(`${keyName} must be printable ASCII without spaces (value not shown)`);
  }
  // A shorter key could not be told apart from ordinary data when it is scrubbed from what the API echoes.
  if (hasKey && key.trim().length < MIN_KEY_LENGTH) {
    problems.push(`${keyName} is shorter than ${MIN_KEY_LENGTH} characters (value not shown)`);
  }
  if (secretId !== undefined && !/^[A-Za-z0-9/_+=.@:-]{1,2048}$/.test(secretId)) {
    problems.push(`${secretName} must be a secret name or ARN (letters, digits and /_+=.@-:)`);
  } else if (secretId?.startsWith('arn:') && !COMPLETE_SECRET_ARN.test(secretId)) {
    // A partial ARN is ambiguous: Secrets Manager reads its last hyphen and six characters as the suffix of
    // another secret's complete ARN. A name never is, whatever it ends in.
    problems.push(`${secretName}: ${PARTIAL_SECRET_ARN_PROBLEM}`);
  }
  return secretId !== undefined && !hasKey
    ? { kind: 'secret', secretId }
    : { kind: 'env', variable: keyName };
}

function networkSetting(env: Env, problems: string[]): string[] {
  const raw = env[S.networks.env] ?? '';
  // Checked before trimming: a tab or newline at an id's end is as suspect as one inside.
  const items = raw
    .split(',')
    .map((item) => ({ id: item.trim(), problem: hiddenCharacterProblem(item) }))
    .filter(({ id }) => id !== '');
  const ids = items.map(({ id }) => id);
  // Refused, not dropped, as the CDK context check does: a list with a repeat is probably not the one meant.
  const repeated = [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))];
  if (repeated.length > 0) {
    const shown = repeated.map((id) =>
      /[\p{Cc}\p{Cf}]/u.test(id) ? '(an id with hidden characters)' : JSON.stringify(id.slice(0, 40)),
    );
    problems.push(
      `${S.networks.env} lists ${shown.slice(0, 5).join(', ')} more than once: list each network once`,
    );
  }
  const bad = items
    .map(({ id, problem }, index) => ({ id, index, problem: problem ?? networkIdProblem(id) }))
    .filter(({ problem }) => problem !== undefined);
  if (bad.length > 0) {
    // An id is quoted only when it holds nothing invisible; otherwise its position in the list names it.
    const shown = bad
      .slice(0, 5)
      .map(({ id, index, problem }) =>
        /[\p{Cc}\p{Cf}]/u.test(id)
          ? `id ${index + 1}: ${problem}`
          : `${JSON.stringify(id.slice(0, 40))}: ${problem}`,
      )
      .join('; ');
    problems.push(`${S.networks.env} has ${bad.length} invalid id(s): ${shown}`);
  }
  return ids;
}

function topicSetting(env: Env, problems: string[]): string | undefined {
  const before = problems.length;
  const topicArn = readIdentifier(env, 'topicArn', problems);
  if (
    problems.length === before &&
    topicArn !== undefined &&
    !/^arn:[a-z-]+:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]{1,256}$/.test(topicArn)
  ) {
    problems.push(`${S.topicArn.env} must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)`);
  }
  return topicArn;
}

function figureFieldsSetting(env: Env, problems: string[]): string[] {
  for (const removed of REMOVED_SETTINGS) {
    if (env[removed.env] !== undefined)
      problems.push(`${removed.env} is no longer a setting: ${removed.instead}`);
  }
  const parsed = parseFigureFields(env[S.figureFields.env] ?? '');
  if (parsed.ok) return parsed.fields;
  problems.push(...parsed.problems.map((problem) => `${S.figureFields.env}: ${problem}`));
  return [];
}

/** The rules, each problem naming the variable and the rule; `on` networks must be configured ones. */
function rulesSetting(env: Env, networks: readonly string[], problems: string[]): Rule[] {
  const parsed = parseRules(env[S.rules.env] ?? '');
  const found = [...parsed.problems, ...ruleNetworkProblems(parsed.rules, networks)];
  problems.push(...found.map((problem) => `${S.rules.env}: ${problem}`));
  return found.length === 0 ? parsed.rules : [];
}

/**
 * Reads and validates the whole monitor configuration from the environment.
 * Every problem is collected and thrown at once as a {@link ConfigError}; nothing is requested before.
 */
export function loadConfig(env: Env = process.env): MonitorConfig {
  const problems: string[] = [];
  const apiUrl = apiUrlSetting(env, problems);
  const apiKey = apiKeySetting(env, problems);
  const networks = networkSetting(env, problems);
  const statusPath = read(env, 'statusPath');
  if (statusPath !== undefined) {
    const parsed = parseStatusPath(statusPath);
    if (!parsed.ok) problems.push(`${S.statusPath.env}: ${parsed.error}`);
  }
  const topicArn = topicSetting(env, problems);
  const store = storeSettings(env, problems);
  const concurrency = integer(env, 'concurrency', problems);
  const timeoutMs = integer(env, 'timeoutMs', problems);
  const maxBodyBytes = integer(env, 'maxBodyBytes', problems);
  const retries = integer(env, 'retries', problems);
  const alertAfter = integer(env, 'alertAfter', problems);
  const confirmations = integer(env, 'confirmations', problems);
  const figureFields = figureFieldsSetting(env, problems);
  const rules = rulesSetting(env, networks, problems);
  const cycleTimeoutMs = integer(env, 'cycleTimeoutMs', problems);
  const monitorName = read(env, 'monitorName') ?? S.monitorName.default;
  const expectation = expectationSettings(env, problems);
  const escalateAfterMs = escalationSetting(env, problems);
  const grouping = groupingSettings(env, problems);
  const ackLink = ackLinkSettings(env, problems);
  const maintenance = maintenanceSetting(env, problems);
  const pollEveryMs = pollEverySetting(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    apiUrl,
    apiKey,
    networks,
    ...(statusPath === undefined ? {} : { statusPath: statusPath.trim() }),
    ...(topicArn === undefined ? {} : { topicArn }),
    ...store,
    concurrency,
    timeoutMs,
    maxBodyBytes,
    retries,
    alertAfter,
    confirmations,
    figureFields,
    rules,
    cycleTimeoutMs,
    monitorName,
    ...expectation,
    ...grouping,
    ...(escalateAfterMs.length === 0 ? {} : { escalateAfterMs }),
    ...(ackLink === undefined ? {} : { ackLink }),
    ...(maintenance.length === 0 ? {} : { maintenance }),
    ...(pollEveryMs === POLL_EVERY_DEFAULT_MS ? {} : { pollEveryMs }),
  };
}

/** The `pollEvery` setting (`10s` to `60s`, dividing a minute), in ms. */
function pollEverySetting(env: Env, problems: string[]): number {
  const text = read(env, 'pollEvery');
  if (text === undefined || text === '') return POLL_EVERY_DEFAULT_MS;
  const parsed = parsePollEvery(text);
  if (parsed.ok) return parsed.everyMs;
  problems.push(`${S.pollEvery.env}: ${parsed.problem}`);
  return POLL_EVERY_DEFAULT_MS;
}

/** The declared maintenance windows, each problem naming the variable and the window. */
function maintenanceSetting(env: Env, problems: string[]): WindowRequest[] {
  const text = env[S.maintenance.env];
  if (text === undefined || text.trim() === '') return [];
  const parsed = parseMaintenance(text, Date.now(), false);
  if (parsed.ok) return parsed.requests;
  problems.push(...parsed.problems.map((problem) => `${S.maintenance.env}: ${problem}`));
  return [];
}

/** A group interval as the `groupInterval` setting takes it (`5m`, `1h`, `1d`; 1m to 1d), in ms. */
export function parseGroupIntervalMs(text: string): number | undefined {
  const ms = parseDuration(text, ['m', 'h', 'd']);
  return ms !== undefined && ms >= MIN_GROUP_INTERVAL_MS && ms <= MAX_GROUP_INTERVAL_MS ? ms : undefined;
}

/** The `groupBy` (`rule` or `none`) and `groupInterval` (1m to 1d) settings. */
function groupingSettings(env: Env, problems: string[]): { groupBy: GroupBy; groupIntervalMs: number } {
  const by = read(env, 'groupBy') ?? 'rule';
  if (by !== 'rule' && by !== 'none') {
    problems.push(`${S.groupBy.env} must be rule or none (got "${by.slice(0, 40)}")`);
  }
  const interval = read(env, 'groupInterval');
  const ms = interval === undefined ? DEFAULT_GROUP_INTERVAL_MS : parseGroupIntervalMs(interval);
  if (ms === undefined) {
    problems.push(
      `${S.groupInterval.env} must be a duration like 5m, 1h or 1d, from 1m to 1d (got "${(interval ?? '').slice(0, 40)}")`,
    );
  }
  return {
    groupBy: by === 'none' ? 'none' : 'rule',
    groupIntervalMs: ms ?? DEFAULT_GROUP_INTERVAL_MS,
  };
}

function escalationSetting(env: Env, problems: string[]): EscalationSchedule {
  const text = read(env, 'escalateAfter');
  if (text === undefined) return [];
  const parsed = parseEscalateAfter(text);
  if (parsed.ok) return parsed.schedule;
  problems.push(`${S.escalateAfter.env}: ${parsed.problem} (e.g. 10m,30m: each 1m to 7d, increasing)`);
  return [];
}

function ackLinkSettings(env: Env, problems: string[]): MonitorConfig['ackLink'] {
  const url = readIdentifier(env, 'ackUrl', problems);
  const secretId = readIdentifier(env, 'ackSecret', problems);
  if (url === undefined && secretId === undefined) return undefined;
  if (url === undefined || secretId === undefined) {
    problems.push(`${S.ackUrl.env} and ${S.ackSecret.env} go together: set both (the stack does) or neither`);
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !(parsed.protocol === 'https:' || isLoopbackHost(parsed.hostname))) {
    problems.push(`${S.ackUrl.env} must be an https:// URL (http:// only for loopback hosts)`);
    return undefined;
  }
  return { url, secretId };
}

/**
 * What is probably wrong with the environment without making it unusable, one line each: variables under
 * the settings' prefix that are no setting (a typo would be ignored without a word), with the nearest
 * setting's name, and values compared as text that have surrounding whitespace. Values are not shown.
 */
export function configWarnings(env: Env = process.env): string[] {
  const unknown = unknownSettings(env).map(
    ({ name, suggestion }) =>
      `${name} is not a ${SETTING_PREFIX}* setting and is ignored` +
      (suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`),
  );
  const spaced = Object.values(S)
    .filter((spec) => 'text' in spec && spec.text === 'exact')
    .filter(({ env: name }) => {
      const value = env[name];
      return value !== undefined && value.trim() !== '' && value !== value.trim();
    })
    .map(({ env: name }) =>
      name === S.expectedStatus.env
        ? `${name} has whitespace around it, which is compared too: a status without it never matches`
        : `${name} has whitespace around it, which is ignored`,
    );
  return [...unknown, ...spaced];
}
