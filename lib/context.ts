/**
 * Reads and validates the CDK context of the shieldwatch stack (docs/deploy.md, Deploy).
 * Pure: takes the context values, returns typed settings or throws one {@link ContextError} that lists
 * every problem, each naming its key.
 */

import type { DigestSchedule } from '../lambda/core/digest/digest-schedule.ts';
import { nearest } from '../lambda/core/nearest.ts';
import { POLL_EVERY_DEFAULT_MS, parsePollEvery } from '../lambda/core/poll-slots.ts';
import { parseMaintenance } from '../lambda/core/silences/maintenance-config.ts';
import { REMOVED_SETTINGS, rangeOf, SETTINGS, type SettingId } from '../lambda/settings.ts';
import {
  CHANNEL_CONTEXT_KEYS,
  CHANNEL_NAMES,
  type ChannelSettings,
  channelCount,
  parseChannelContext,
} from './context-channels.ts';
import {
  parseStatusPageContext,
  STATUS_PAGE_CONTEXT_KEYS,
  type StatusPageSettings,
} from './context-status-page.ts';
import {
  optional,
  type Parsed,
  parseApiUrl,
  parseDigestContext,
  parseEmail,
  parseEscalateAfterContext,
  parseExpectedStatus,
  parseFigureFieldList,
  parseGroupBy,
  parseGroupInterval,
  parseInteger,
  parseKmsKeyArn,
  parseList,
  parseNetworks,
  parsePath,
  parsePhone,
  parsePollEveryContext,
  parseRemindEvery,
  parseRulesText,
  parseSecretId,
  parseSetting,
  show,
} from './context-values.ts';
import { DEFAULT_SCHEDULE, parseScheduleExpression, type ScheduleSpec } from './schedule-expression.ts';
import {
  fittingShardSize,
  MAX_SCHEDULE_INPUT_CHARS,
  MAX_SHARDS,
  MAX_TEMPLATE_INPUT_CHARS,
  planShards,
  scheduleInputChars,
  templateInputChars,
} from './shards.ts';

/** The context keys of the settings catalogue: each sets one of the function's variables. */
type SettingContextKey = {
  [K in SettingId]: (typeof SETTINGS)[K] extends { readonly context: infer C extends string } ? C : never;
}[SettingId];

/** The context keys of the stack alone (subscriptions, schedule, sizing, the key's encryption, channels). */
const STACK_CONTEXT_KEYS = [
  'alertEmail',
  'alertSms',
  'schedule',
  'reservedConcurrency',
  'ackConcurrency',
  'shardSize',
  'apiKeySecretKmsKeyArn',
  ...CHANNEL_CONTEXT_KEYS,
  ...STATUS_PAGE_CONTEXT_KEYS,
] as const;

/** The context keys the stack reads: those of the settings catalogue, then the stack's own. */
export const CONTEXT_KEYS: readonly (SettingContextKey | (typeof STACK_CONTEXT_KEYS)[number])[] = [
  ...Object.values(SETTINGS).flatMap((spec): SettingContextKey[] =>
    'context' in spec ? [spec.context] : [],
  ),
  ...STACK_CONTEXT_KEYS,
];

/** One of {@link CONTEXT_KEYS}. */
export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** The validated settings of one shieldwatch deployment. */
export interface MonitorSettings {
  /** Base URL of the protection API (`https://` only: the function runs in AWS). */
  readonly apiUrl: string;
  /**
   * Network ids whose real-time statistics are polled.
   * @default [] (filter status only)
   */
  readonly networks: readonly string[];
  /**
   * Email addresses subscribed to the alert topic.
   * @default []
   */
  readonly alertEmails: readonly string[];
  /**
   * Phone numbers (E.164) subscribed to the alert topic by SMS.
   * @default []
   */
  readonly alertSms: readonly string[];
  /**
   * When the poller runs.
   * @default rate(1 minute)
   */
  readonly schedule: ScheduleSpec;
  /**
   * Dot path to the status in the filter-status body.
   * @default - unset: the function tries the well-known paths (docs/design/cycle.md, Filter status)
   */
  readonly statusPath?: string;
  /**
   * An existing Secrets Manager secret holding the API key: its name, or its complete ARN (ending in the
   * six characters Secrets Manager adds), as the function's loader accepts both.
   * @default - unset: the stack creates an empty secret for the user to fill
   */
  readonly apiKeySecretName?: string;
  /**
   * ARN of the customer-managed KMS key that encrypts the existing secret ({@link apiKeySecretName}): the
   * function may decrypt with it through Secrets Manager only.
   * @default - unset: the secret is under the AWS-managed key `aws/secretsmanager`
   */
  readonly apiKeySecretKmsKeyArn?: string;
  /**
   * Days a snapshot is kept before DynamoDB TTL removes it.
   * @default 90
   */
  readonly retentionDays: number;
  /**
   * Reserved concurrency of the poller function.
   * @default - unset: no reservation (a reservation needs spare unreserved concurrency in the account)
   */
  readonly reservedConcurrency?: number;
  /**
   * Reserved concurrency of the acknowledge function (docs/acknowledge.md), 1 to 10, or `off` for none.
   * @default - unset: 2
   */
  readonly ackConcurrency?: number | 'off';
  /**
   * Dot paths of the numeric fields of each network's body published as metrics (catalogue `figureFields`),
   * at most 10. Each field of each network is a custom metric, the largest item of the monthly bill.
   * @default [] (no figure metrics)
   */
  readonly figureFields: readonly string[];
  /**
   * Most networks one schedule polls: the networks are split, in order, across one schedule per slice, each
   * invocation carrying its slice in its event (not in the function's environment); the first also polls
   * the filter status. See {@link planShards}.
   * @default - unset: one schedule polls the filter and every network, listed in the environment
   */
  readonly shardSize?: number;
  /**
   * The status the filter should be in (catalogue `expectedStatus`), exact: a change away from it is
   * `severity=high`, a change back to it `severity=resolved`.
   * @default - unset: the function's default (no expected status)
   */
  readonly expectedStatus?: string;
  /**
   * Reminder interval of every open, unacknowledged incident (catalogue `remindEvery`; the status away
   * from {@link expectedStatus} is one when that is set), as given, e.g. `1h`.
   * @default - unset: no reminders
   */
  readonly remindEvery?: string;
  /**
   * Ages at which an open, unacknowledged incident escalates (catalogue `escalateAfter`), as given, e.g.
   * `10m,30m` (docs/acknowledge.md).
   * @default - unset: no escalation
   */
  readonly escalateAfter?: string;
  /**
   * How rule alerts are grouped (catalogue `groupBy`): `rule` or `none` (docs/alerts.md, Incidents).
   * @default - unset: the function's default (`rule`)
   */
  readonly groupBy?: string;
  /**
   * Least time between two alerts of an incident's joiners (catalogue `groupInterval`), as given, e.g. `5m`.
   * @default - unset: the function's default (`5m`)
   */
  readonly groupInterval?: string;
  /**
   * Traffic rules (catalogue `rules`, docs/rules.md), one rule after another joined by `;`, each as
   * written; their `on` networks are among {@link networks}.
   * @default - unset: no rules
   */
  readonly rules?: string;
  /**
   * Maintenance windows (catalogue `maintenance`, docs/silences.md), as checked at synth: a JSON list the
   * function reads again (the catalogue's `maintenance` variable). A deploy without a window removes it.
   * @default - unset: no declared window
   */
  readonly maintenance?: string;
  /**
   * How often the deployed monitor polls (catalogue `pollEvery`, CONTRACT §18), as given, e.g. `10s`: one
   * cycle per slot of each scheduled minute; only with the schedule `rate(1 minute)`.
   * @default - unset: one cycle per scheduled run (60s)
   */
  readonly pollEvery?: string;
  /**
   * Cycles in a row a new status must be seen before it is a change (catalogue `confirmations`).
   * @default - unset: the function's default (1)
   */
  readonly confirmations?: number;
  /**
   * Cycles in a row before an "unreachable" or "status unreadable" alert (catalogue `alertAfter`).
   * @default - unset: the function's default (3)
   */
  readonly alertAfter?: number;
  /**
   * Most API requests in flight at once per invocation (catalogue `concurrency`).
   * @default - unset: the function's default (10)
   */
  readonly concurrency?: number;
  /**
   * One request attempt's time-out in milliseconds (catalogue `timeoutMs`), less than the function's
   * timeout ({@link pollerTimeoutSeconds}).
   * @default - unset: the function's default (5000)
   */
  readonly requestTimeoutMs?: number;
  /** Slack, Teams, PagerDuty and webhook channels fanned out from the topic (docs/channels.md). */
  readonly channels: ChannelSettings;
  /**
   * The hosted status page (`statusPage`, `statusPageEvery`; docs/status-page.md).
   * @default - unset: no page (`statusPage=off`)
   */
  readonly statusPage?: StatusPageSettings;
  /**
   * The digest published to the alert topic (`digest`, `digestAt`, `digestTz`; CONTRACT §19, docs/digest.md),
   * checked as the function checks it.
   * @default - unset: no digest (`digest=off`)
   */
  readonly digest?: DigestSchedule;
}

/** Invalid context: every problem, one line each, each starting with the key it concerns. */
export class ContextError extends Error {
  override readonly name = 'ContextError';

  constructor(readonly problems: readonly string[]) {
    super(
      `Invalid shieldwatch context (set it in cdk.json or with -c key=value):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

/** Default snapshot retention, in days (README.md, Configuration). */
export const DEFAULT_RETENTION_DAYS = rangeOf('retentionDays').default;
/**
 * Without sharding, most characters of all network ids joined by commas: they travel in the function's
 * environment, and Lambda allows 4 KB for all its variables.
 */
export const MAX_NETWORKS_CHARS = 2048;
/** Largest `shardSize` accepted; the schedule input limit stops far smaller shards of real ids anyway. */
export const MAX_SHARD_SIZE = 10_000;
/** Longest function timeout, however rare the schedule: every request times out after at most 10 s. */
export const MAX_POLLER_TIMEOUT_SECONDS = 120;

/**
 * Function timeout for a schedule, in seconds: half the shortest interval between two runs, at most
 * {@link MAX_POLLER_TIMEOUT_SECONDS}. The cycle's deadline is the remaining time less a margin, so a slow
 * cycle ends well before the next.
 */
export function pollerTimeoutSeconds(minIntervalMinutes: number): number {
  return Math.min((minIntervalMinutes * 60) / 2, MAX_POLLER_TIMEOUT_SECONDS);
}

/**
 * Validates the context. `values` is the app context (`node.getAllContext()`); keys of other
 * tools (feature flags, `aws:cdk:*`, ...) are ignored, but a near miss of one of ours (`alertEmails`,
 * `apiurl`) is an error, because its value would be silently ignored.
 */
export function parseMonitorContext(values: Readonly<Record<string, unknown>>): MonitorSettings {
  const problems: string[] = [];
  const take = <T>(key: ContextKey, parsed: Parsed<T>): T | undefined => {
    if (parsed.ok) return parsed.value;
    problems.push(`${key}: ${parsed.problem}`);
    return undefined;
  };
  const present = (key: ContextKey): unknown => {
    const value = values[key];
    return value === '' || value === null ? undefined : value;
  };

  problems.push(...misspelledKeys(Object.keys(values)));
  const apiUrl = take('apiUrl', parseApiUrl(present('apiUrl')));
  const networks = take('networks', parseNetworks(present('networks')));
  const alertEmails = take('alertEmail', parseList(present('alertEmail'), parseEmail));
  const alertSms = take('alertSms', parseList(present('alertSms'), parsePhone));
  const schedule = take('schedule', parseScheduleExpression(present('schedule') ?? DEFAULT_SCHEDULE));
  const statusPath = take('statusPath', optional(present('statusPath'), parsePath));
  const apiKeySecretName = take('apiKeySecretName', optional(present('apiKeySecretName'), parseSecretId));
  const apiKeySecretKmsKeyArn = take(
    'apiKeySecretKmsKeyArn',
    optional(present('apiKeySecretKmsKeyArn'), parseKmsKeyArn),
  );
  if (apiKeySecretKmsKeyArn !== undefined && present('apiKeySecretName') === undefined) {
    problems.push(
      'apiKeySecretKmsKeyArn: needs apiKeySecretName (the key is that of an existing secret; a secret the ' +
        'stack creates is under aws/secretsmanager): set it too, or leave apiKeySecretKmsKeyArn unset',
    );
  }
  const retentionDays = take(
    'retentionDays',
    parseSetting(present('retentionDays') ?? DEFAULT_RETENTION_DAYS, 'retentionDays'),
  );
  const reservedConcurrency = take(
    'reservedConcurrency',
    optional(present('reservedConcurrency'), (v) => parseInteger(v, 1, 1000, 'concurrent executions')),
  );
  const ackConcurrency = take(
    'ackConcurrency',
    optional(
      present('ackConcurrency'),
      (v): Parsed<number | 'off'> =>
        v === 'off' ? { ok: true, value: 'off' } : parseInteger(v, 1, 10, 'concurrent executions (or off)'),
    ),
  );
  const figureFields = take('figureFields', parseFigureFieldList(present('figureFields') ?? []));
  for (const removed of REMOVED_SETTINGS) {
    if (values[removed.context] !== undefined) {
      problems.push(`${removed.context}: no longer a context key: ${removed.instead}`);
    }
  }
  const shardSizeParsed = optional(present('shardSize'), (v) =>
    parseInteger(v, 1, MAX_SHARD_SIZE, 'networks per shard'),
  );
  const shardSize = take('shardSize', shardSizeParsed);
  if (networks !== undefined && shardSizeParsed.ok) {
    problems.push(...shardingProblems(networks, shardSize, reservedConcurrency));
  }
  const expectedStatusParsed = optional(present('expectedStatus'), parseExpectedStatus);
  const expectedStatus = take('expectedStatus', expectedStatusParsed);
  const remindEvery = take('remindEvery', optional(present('remindEvery'), parseRemindEvery));
  // Without expectedStatus, reminders are of incidents only (a rule's, the API's): no status is "away".
  const groupBy = take('groupBy', optional(present('groupBy'), parseGroupBy));
  const groupInterval = take('groupInterval', optional(present('groupInterval'), parseGroupInterval));
  const escalateAfter = take('escalateAfter', optional(present('escalateAfter'), parseEscalateAfterContext));
  const confirmations = take(
    'confirmations',
    optional(present('confirmations'), (v) => parseSetting(v, 'confirmations')),
  );
  const alertAfter = take(
    'alertAfter',
    optional(present('alertAfter'), (v) => parseSetting(v, 'alertAfter')),
  );
  const concurrency = take(
    'concurrency',
    optional(present('concurrency'), (v) => parseSetting(v, 'concurrency')),
  );
  const requestTimeoutMs = take(
    'requestTimeoutMs',
    optional(present('requestTimeoutMs'), (v) => parseSetting(v, 'timeoutMs')),
  );
  if (requestTimeoutMs !== undefined && schedule !== undefined) {
    const timeoutMs = pollerTimeoutSeconds(schedule.minIntervalMinutes) * 1000;
    if (requestTimeoutMs >= timeoutMs) {
      problems.push(
        `requestTimeoutMs: ${requestTimeoutMs} is not less than the function's timeout of ${timeoutMs} ms ` +
          `(half the shortest interval of schedule ${show(schedule.expression)}): lower it`,
      );
    }
  }

  // Unsharded, the networks share the function's environment with the rules; sharded, each event carries its own.
  const unsharded = shardSize === undefined ? (networks ?? []) : [];
  const rules = parseRulesText(present('rules'), networks ?? [], [...unsharded, ...(figureFields ?? [])]);
  if (!rules.ok) problems.push(...rules.problems.map((problem) => `rules: ${problem}`));
  const rulesText = rules.ok ? rules.value : undefined;
  const pollEvery = take('pollEvery', optional(present('pollEvery'), parsePollEveryContext));
  if (pollEvery !== undefined && schedule !== undefined && pollEveryMsOf(pollEvery) < 60_000) {
    if (schedule.minIntervalMinutes !== 1 || schedule.maxIntervalMinutes !== 1) {
      problems.push(
        `pollEvery: ${show(pollEvery)} runs its cycles within each scheduled minute: it needs a schedule that ` +
          `runs every minute (rate(1 minute)), not ${show(schedule.expression)}`,
      );
    }
    if (requestTimeoutMs !== undefined && requestTimeoutMs >= pollEveryMsOf(pollEvery) - 1000) {
      problems.push(
        `requestTimeoutMs: ${requestTimeoutMs} does not fit a cycle of pollEvery ${show(pollEvery)}: lower it ` +
          `below ${pollEveryMsOf(pollEvery) - 1000}`,
      );
    }
  }
  const maintenance = parseMaintenanceContext(present('maintenance'));
  problems.push(...maintenance.problems);
  const channels = parseChannelContext(present);
  problems.push(...channels.problems);
  const statusPage = parseStatusPageContext(present);
  problems.push(...statusPage.problems);
  const digest = parseDigestContext(present);
  problems.push(...digest.problems);

  if (problems.length > 0) throw new ContextError(problems);
  return {
    apiUrl: apiUrl!,
    networks: networks!,
    alertEmails: alertEmails!,
    alertSms: alertSms!,
    schedule: schedule!,
    ...(statusPath === undefined ? {} : { statusPath }),
    ...(apiKeySecretName === undefined ? {} : { apiKeySecretName }),
    ...(apiKeySecretKmsKeyArn === undefined ? {} : { apiKeySecretKmsKeyArn }),
    retentionDays: retentionDays!,
    ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
    ...(ackConcurrency === undefined ? {} : { ackConcurrency }),
    figureFields: figureFields!,
    ...(shardSize === undefined ? {} : { shardSize }),
    ...(expectedStatus === undefined ? {} : { expectedStatus }),
    ...(remindEvery === undefined ? {} : { remindEvery }),
    ...(escalateAfter === undefined || escalateAfter === '' ? {} : { escalateAfter }),
    ...(groupBy === undefined ? {} : { groupBy }),
    ...(groupInterval === undefined ? {} : { groupInterval }),
    ...(confirmations === undefined ? {} : { confirmations }),
    ...(alertAfter === undefined ? {} : { alertAfter }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(rulesText === undefined ? {} : { rules: rulesText }),
    ...(maintenance.text === undefined ? {} : { maintenance: maintenance.text }),
    ...(pollEvery === undefined ? {} : { pollEvery }),
    channels: channels.settings,
    ...(statusPage.settings === undefined ? {} : { statusPage: statusPage.settings }),
    ...(digest.schedule === undefined ? {} : { digest: digest.schedule }),
  };
}

/**
 * Context `maintenance` (CONTRACT §17): a JSON list (in `cdk.json`) or its text (`-c maintenance=...`), each
 * window checked as `silence --start` checks it, at synth time; each problem names its window.
 */
export function parseMaintenanceContext(
  value: unknown,
  nowMs: number = Date.now(),
): { readonly text?: string; readonly problems: string[] } {
  if (value === undefined) return { problems: [] };
  const parsed = parseMaintenance(value, nowMs, true);
  if (!parsed.ok) return { problems: parsed.problems.map((problem) => `maintenance: ${problem}`) };
  return parsed.windows.length === 0 ? { problems: [] } : { text: parsed.text, problems: [] };
}

/** A setting the context allows that the operator should hear about before deploying. */
export interface ContextWarning {
  /** The key concerned, or `subscribers` for the warning that no one is subscribed to the alerts. */
  readonly key: ContextKey | 'subscribers';
  readonly message: string;
}

/** Least unreserved concurrency Lambda keeps in an account: a reservation that would leave less fails. */
export const MIN_UNRESERVED_CONCURRENCY = 100;

/**
 * What is allowed but probably wrong or needs a check first, as the env loader warns about its variables:
 * an expected status with whitespace around it (compared exactly, so a status without it never matches), and
 * a reserved concurrency, which fails the deploy in accounts without that much spare concurrency; and a stack
 * with no subscriber at all (no email, SMS, chat, PagerDuty or webhook), whose alerts would reach no one.
 */
export function contextWarnings(settings: MonitorSettings): ContextWarning[] {
  const warnings: ContextWarning[] = [];
  const { channels } = settings;
  const subscribers = settings.alertEmails.length + settings.alertSms.length + channelCount(channels);
  if (subscribers === 0) {
    const names = ['alertEmail', 'alertSms', ...CHANNEL_NAMES];
    warnings.push({
      key: 'subscribers',
      message:
        `no one will be told: no ${names.slice(0, -1).join(', ')} or ${names.at(-1)} is set, so alerts ` +
        'reach the SNS topic and no subscriber; set at least one, e.g. -c alertEmail=ops@example.com (or ' +
        'subscribe to the TopicArn output yourself)',
    });
  }
  const expected = settings.expectedStatus;
  if (expected !== undefined && expected !== expected.trim()) {
    warnings.push({
      key: 'expectedStatus',
      message:
        `expectedStatus ${show(expected)} has whitespace around it, which is compared too: a status ` +
        'without it never matches (remove it unless the API really reports it)',
    });
  }
  const reserved = settings.reservedConcurrency;
  if (reserved !== undefined) {
    warnings.push({
      key: 'reservedConcurrency',
      message:
        `reservedConcurrency ${reserved} takes ${reserved} of the account's concurrent executions; the deploy ` +
        `fails unless UnreservedConcurrentExecutions stays at least ${MIN_UNRESERVED_CONCURRENCY} after it ` +
        '(new accounts often have 10 in all): check with aws lambda get-account-settings',
    });
  }
  return warnings;
}

/**
 * Whether the networks fit where they travel: without sharding the function's environment, with sharding
 * the schedules' inputs (each, and all together in the template). Each problem names the key to change.
 */
function shardingProblems(
  networks: readonly string[],
  shardSize: number | undefined,
  reservedConcurrency: number | undefined,
): string[] {
  const count = (n: number) => n.toLocaleString('en-US');
  if (shardSize === undefined) {
    const chars = networks.join(',').length;
    if (chars <= MAX_NETWORKS_CHARS) return [];
    const suggestion = fittingShardSize(networks, 500) ?? 1;
    return [
      `networks: ${count(networks.length)} ids take ${count(chars)} characters, more than the ` +
        `${count(MAX_NETWORKS_CHARS)} the function's environment holds without sharding (Lambda allows 4 KB ` +
        `for all variables): set shardSize (e.g. -c shardSize=${suggestion}) so that each schedule carries ` +
        'its slice of the networks instead',
    ];
  }

  const shards = planShards(networks, shardSize);
  const templateChars = shards.reduce((sum, shard) => sum + templateInputChars(shard), 0);
  if (templateChars > MAX_TEMPLATE_INPUT_CHARS) {
    return [
      `networks: ${count(networks.length)} ids need ${count(templateChars)} characters of schedule input ` +
        `in the template, more than the ${count(MAX_TEMPLATE_INPUT_CHARS)} one stack holds (CloudFormation ` +
        'accepts templates of 1 MB): monitor fewer networks, or shorter ids, per stack',
    ];
  }
  if (shards.length > MAX_SHARDS) {
    return [
      `shardSize: ${count(networks.length)} networks in shards of ${shardSize} make ${count(shards.length)} ` +
        `schedules, more than the ${MAX_SHARDS} one stack holds (CloudFormation allows 500 resources): ` +
        `raise shardSize to at least ${Math.ceil(networks.length / MAX_SHARDS)}`,
    ];
  }
  const sizes = shards.map(scheduleInputChars);
  const longest = sizes.indexOf(Math.max(...sizes));
  if (sizes[longest]! > MAX_SCHEDULE_INPUT_CHARS) {
    const first = longest * shardSize + 1;
    const last = first + shards[longest]!.networks.length - 1;
    const suggestion = fittingShardSize(networks, shardSize - 1);
    return [
      `shardSize: shard ${longest + 1} of ${shards.length} (networks ${count(first)} to ${count(last)}) ` +
        `needs a schedule input of ${count(sizes[longest]!)} characters, more than the ` +
        `${count(MAX_SCHEDULE_INPUT_CHARS)} a schedule carries: lower shardSize` +
        (suggestion === undefined ? '' : ` to ${suggestion} or less`),
    ];
  }
  if (reservedConcurrency !== undefined && reservedConcurrency < shards.length) {
    return [
      `reservedConcurrency: ${reservedConcurrency} is less than the ${shards.length} shards that start ` +
        `together (shardSize ${shardSize}): the others would be throttled; raise it to at least ` +
        `${shards.length} or leave it unset`,
    ];
  }
  return [];
}

/**
 * Near misses of our keys. Other tools' keys share the context, so only a key close to one of ours (by
 * letters alone, or within a typo's edit distance) is an error; `aws:` and `@aws-cdk/` keys never are.
 */
function misspelledKeys(keys: readonly string[]): string[] {
  const known = new Set<string>([...CONTEXT_KEYS, ...REMOVED_SETTINGS.map((removed) => removed.context)]);
  const normalize = (key: string) =>
    key
      .toLowerCase()
      .replace(/[^a-z]/g, '')
      .replace(/s$/, '');
  const byNormal = new Map(CONTEXT_KEYS.map((key) => [normalize(key), key]));
  const ours = (key: string) => !/^(aws:|@aws-cdk\/|cdk-|acknowledged-issue)/.test(key);
  return keys
    .filter((key) => !known.has(key) && ours(key))
    .map((key) => ({ key, match: byNormal.get(normalize(key)) ?? nearest(key, CONTEXT_KEYS, '', false) }))
    .filter(({ match }) => match !== undefined)
    .map(({ key, match }) => `${key}: unknown context key; did you mean ${match}?`);
}

/** The poll interval a checked `pollEvery` names, ms. */
export function pollEveryMsOf(pollEvery: string | undefined): number {
  if (pollEvery === undefined) return POLL_EVERY_DEFAULT_MS;
  const parsed = parsePollEvery(pollEvery);
  return parsed.ok ? parsed.everyMs : POLL_EVERY_DEFAULT_MS;
}
