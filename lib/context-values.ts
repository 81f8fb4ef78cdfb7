/**
 * The value parsers of the CDK context check (`context.ts`): one per kind of value, each returning the value
 * or why it was refused, without the key, which the caller adds. Pure.
 */

import {
  COMPLETE_SECRET_ARN,
  PARTIAL_SECRET_ARN_PROBLEM,
  parseGroupIntervalMs,
  parseRemindEveryMs,
} from '../lambda/config.ts';
import { hiddenCharacterProblem } from '../lambda/core/alerts/hidden-characters.ts';
import { parseFigureFields } from '../lambda/core/detect/figures.ts';
import { parseStatusPath } from '../lambda/core/detect/status.ts';
import { type DigestSchedule, parseDigestSchedule } from '../lambda/core/digest/digest-schedule.ts';
import { parseEscalateAfter } from '../lambda/core/incidents/escalation.ts';
import { networkIdProblem } from '../lambda/core/network-id.ts';
import { parsePollEvery } from '../lambda/core/poll-slots.ts';
import { parseRules, ruleNetworkProblems, ruleTexts } from '../lambda/core/rules/rules.ts';
import { rangeOf } from '../lambda/settings.ts';

/** A parsed value, or why the input was refused (without the key, which the caller adds). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = (problem: string): Parsed<never> => ({ ok: false, problem });

/** A value as the messages quote it: JSON, cut at 80 characters. */
export const show = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
};

/** `parse` for a value that is set; unset (undefined) is fine. */
export function optional<T>(value: unknown, parse: (value: unknown) => Parsed<T>): Parsed<T | undefined> {
  return value === undefined ? ok(undefined) : parse(value);
}

export function parseApiUrl(value: unknown): Parsed<string> {
  if (value === undefined) {
    return fail('required: the base URL of the protection API, e.g. -c apiUrl=https://api.example.com');
  }
  if (typeof value !== 'string') return fail(`expected an https:// URL, got ${show(value)}`);
  // Before parsing: the URL parser drops tabs and newlines, so one could silently change the host.
  const hidden = hiddenCharacterProblem(value);
  if (hidden !== undefined) return fail(`${hidden}; refused (value not shown)`);
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(`expected an absolute https:// URL such as https://api.example.com, got ${show(value)}`);
  }
  if (url.protocol !== 'https:') {
    return fail(`expected an https:// URL (the function runs in AWS and sends the key), got ${show(value)}`);
  }
  if (url.username !== '' || url.password !== '') {
    return fail('must not contain credentials: put the API key into the secret');
  }
  if (url.search !== '' || url.hash !== '') {
    return fail(`must not have a query or fragment, got ${show(value)}`);
  }
  if (text.length > 1024) return fail('expected at most 1024 characters');
  return ok(text);
}

/** Accepts a comma-separated string (`-c key=a,b`) or an array of strings (cdk.json). */
function splitList(value: unknown): Parsed<string[]> {
  if (value === undefined) return ok([]);
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((item) => typeof item !== 'string')) {
    return fail(`expected a comma-separated list or an array of strings, got ${show(value)}`);
  }
  const trimmed = items.map((item: string) => item.trim());
  if (trimmed.some((item) => item === '')) return fail(`has an empty entry in ${show(value)}`);
  const seen = new Set<string>();
  for (const item of trimmed) {
    if (seen.has(item)) return fail(`lists ${show(item)} twice`);
    seen.add(item);
  }
  return ok(trimmed);
}

export function parseList(value: unknown, parseItem: (item: string) => Parsed<string>): Parsed<string[]> {
  const list = splitList(value);
  if (!list.ok) return list;
  const problems: string[] = [];
  for (const item of list.value) {
    const parsed = parseItem(item);
    if (!parsed.ok) problems.push(parsed.problem);
  }
  return problems.length > 0 ? fail(problems.join('; ')) : list;
}

export function parseNetworks(value: unknown): Parsed<string[]> {
  const list = splitList(value);
  if (!list.ok) return list;
  // Checked before trimming: a tab or newline at an id's end is as suspect as one inside.
  const items: readonly unknown[] =
    typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  for (const [index, item] of items.entries()) {
    const hidden = hiddenCharacterProblem(String(item));
    if (hidden !== undefined) return fail(`id ${index + 1} ${hidden}`);
  }
  for (const id of list.value) {
    const problem = networkIdProblem(id);
    if (problem !== undefined) return fail(`${show(id)} is not a network id (${problem})`);
  }
  return list;
}

export function parseEmail(item: string): Parsed<string> {
  return /^[^@\s\p{Cc}\p{Cf}]+@[^@\s\p{Cc}\p{Cf}]+\.[^@\s.\p{Cc}\p{Cf}]+$/u.test(item)
    ? ok(item)
    : fail(`${show(item)} is not an email address (expected name@example.com)`);
}

export function parsePhone(item: string): Parsed<string> {
  return /^\+[1-9][0-9]{1,14}$/.test(item)
    ? ok(item)
    : fail(
        `${show(item)} is not an E.164 phone number (expected + and up to 15 digits, no spaces, e.g. +14155550100)`,
      );
}

export function parsePath(value: unknown): Parsed<string> {
  if (typeof value !== 'string') {
    return fail(`expected a dot path such as data.filter.state, got ${show(value)}`);
  }
  const parsed = parseStatusPath(value);
  return parsed.ok ? ok(value.trim()) : fail(parsed.error);
}

/** Figure fields: a comma list (`-c figureFields=a.b,c`) or an array of strings (cdk.json) of dot paths. */
export function parseFigureFieldList(value: unknown): Parsed<string[]> {
  if (
    typeof value !== 'string' &&
    !(Array.isArray(value) && value.every((item) => typeof item === 'string'))
  ) {
    return fail(`expected a comma-separated list or an array of dot paths, got ${show(value)}`);
  }
  const parsed = parseFigureFields(value);
  return parsed.ok ? ok(parsed.fields) : fail(parsed.problems.join('; '));
}

/**
 * Most characters of the rules and the other lists in the function's environment (the figure fields and,
 * without sharding, the networks) together: Lambda allows 4 KB for all variables, and the others need the rest.
 */
export const MAX_LISTS_CHARS = 3072;

/**
 * Traffic rules: one string (`-c rules='a: x > 1; b: y == true'`) or an array of rule strings (cdk.json), parsed
 * as the function parses its rules setting, `on` networks among `networks`. Unset or blank is no rules. The
 * value is the rules as written, joined by `;` (no longer than the input); every problem is listed, each naming
 * its rule. `beside` are the other lists in the function's environment, which the rules must leave room for.
 */
export function parseRulesText(
  value: unknown,
  networks: readonly string[],
  beside: readonly string[],
): { ok: true; value: string | undefined } | { ok: false; problems: string[] } {
  if (value === undefined) return { ok: true, value: undefined };
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((item) => typeof item === 'string')
        ? value.join('\n')
        : undefined;
  if (text === undefined) {
    return {
      ok: false,
      problems: [`expected the rules as a string or an array of strings, got ${show(value)}`],
    };
  }
  const parsed = parseRules(text);
  const problems = [...parsed.problems, ...ruleNetworkProblems(parsed.rules, networks)];
  if (problems.length > 0) return { ok: false, problems };
  const texts = ruleTexts(text);
  const joined = texts.join(';');
  const chars = joined.length + beside.join(',').length;
  if (texts.length > 0 && chars > MAX_LISTS_CHARS) {
    const problem =
      `with the figure fields and the networks (without shardSize) the rules take ${chars} characters, more than ` +
      `the ${MAX_LISTS_CHARS} the function's environment has room for (Lambda allows 4 KB for all variables): ` +
      'shorten the rules, or set shardSize';
    return { ok: false, problems: [problem] };
  }
  return { ok: true, value: texts.length === 0 ? undefined : joined };
}

/**
 * An existing secret by name or complete ARN, as the function's loader accepts either. A partial ARN (without
 * the suffix) is refused: the stack could grant nothing narrower than the name would, and Secrets Manager may
 * read it as another secret's complete ARN. A name reaches the function as it is (never as a partial ARN), so a
 * name ending in a hyphen and six characters works too.
 */
export function parseSecretId(value: unknown): Parsed<string> {
  const hidden = typeof value === 'string' ? hiddenCharacterProblem(value) : undefined;
  if (hidden !== undefined) return fail(`${hidden}; refused`);
  if (typeof value === 'string' && value.startsWith('arn:')) {
    return COMPLETE_SECRET_ARN.test(value)
      ? ok(value)
      : fail(`${PARTIAL_SECRET_ARN_PROBLEM}, got ${show(value)}`);
  }
  if (typeof value !== 'string' || !/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(value)) {
    return fail(
      `expected a Secrets Manager secret name (1 to 512 of A-Z a-z 0-9 / _ + = . @ -) or ARN, got ${show(value)}`,
    );
  }
  return ok(value);
}

export function parseKmsKeyArn(value: unknown): Parsed<string> {
  if (
    typeof value === 'string' &&
    /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]{1,128}$/.test(value)
  ) {
    return ok(value);
  }
  const alias = typeof value === 'string' && /:alias\//.test(value);
  return fail(
    'expected the ARN of a KMS key (arn:aws:kms:REGION:ACCOUNT:key/ID)' +
      (alias ? ', not of an alias: a grant names the key itself' : '') +
      `, got ${show(value)}`,
  );
}

/** The expected status is compared exactly, so it is kept as given, spaces included. */
export function parseExpectedStatus(value: unknown): Parsed<string> {
  if (typeof value !== 'string') {
    return fail(`expected the status as a string, e.g. active, got ${show(value)}`);
  }
  if (value.trim() === '') return fail(`expected a non-blank status such as active, got ${show(value)}`);
  return ok(value);
}

/** `groupBy`: `rule` or `none`, as the same setting's variable takes it. */
export function parseGroupBy(value: unknown): Parsed<string> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  return text === 'rule' || text === 'none' ? ok(text) : fail(`expected rule or none, got ${show(value)}`);
}

/** `groupInterval`: a duration from 1m to 1d, as the same setting's variable takes it, trimmed. */
export function parseGroupInterval(value: unknown): Parsed<string> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || parseGroupIntervalMs(text) === undefined) {
    return fail(`expected a duration like 5m, 1h or 1d, from 1m to 1d, got ${show(value)}`);
  }
  return ok(text);
}

export function parseRemindEvery(value: unknown): Parsed<string> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || parseRemindEveryMs(text) === undefined) {
    return fail(`expected a duration like 30m, 1h or 1d, from 1m to 30d, got ${show(value)}`);
  }
  return ok(text);
}

/** `escalateAfter`: the text as the same setting's variable takes it (each 1m to 7d, increasing), trimmed. */
export function parseEscalateAfterContext(value: unknown): Parsed<string> {
  if (typeof value !== 'string') return fail(`expected durations like 10m,30m, got ${show(value)}`);
  const parsed = parseEscalateAfter(value);
  return parsed.ok ? ok(value.trim()) : fail(`${parsed.problem} (e.g. 10m,30m: each 1m to 7d, increasing)`);
}

/** A whole-number setting, with the range and unit of the settings catalogue (shared with the env loader). */
export function parseSetting(value: unknown, id: Parameters<typeof rangeOf>[0]): Parsed<number> {
  const { min, max, unit } = rangeOf(id);
  return parseInteger(value, min, max, unit);
}

export function parseInteger(value: unknown, min: number, max: number, unit: string): Parsed<number> {
  const number = typeof value === 'string' && /^\s*[0-9]+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    return fail(`expected a whole number of ${unit} from ${min} to ${max}, got ${show(value)}`);
  }
  return ok(number);
}

/** Context `pollEvery`: `10s` to `60s`, dividing a minute (CONTRACT §18). */
export function parsePollEveryContext(value: unknown): Parsed<string> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  const parsed = text === undefined ? undefined : parsePollEvery(text);
  if (parsed === undefined) return fail(`expected a duration like 10s, 30s or 60s, got ${show(value)}`);
  return parsed.ok ? ok(text!) : fail(parsed.problem);
}

/**
 * Context `digest`, `digestAt` and `digestTz` (CONTRACT §19), checked as the digest function checks its variables
 * (`parseDigestSchedule`): `schedule` is undefined when the digest is off (the default). A value that is not
 * text (a number or a list in cdk.json) is refused naming its key.
 */
export function parseDigestContext(present: (key: 'digest' | 'digestAt' | 'digestTz') => unknown): {
  readonly schedule: DigestSchedule | undefined;
  readonly problems: readonly string[];
} {
  const problems: string[] = [];
  const text = (key: 'digest' | 'digestAt' | 'digestTz'): string | undefined => {
    const value = present(key);
    if (value === undefined || typeof value === 'string') return value;
    problems.push(`${key}: expected text, got ${show(value)}`);
    return undefined;
  };
  const values = { digest: text('digest'), digestAt: text('digestAt'), digestTz: text('digestTz') };
  if (problems.length > 0) return { schedule: undefined, problems };
  const parsed = parseDigestSchedule(values);
  return parsed.ok
    ? { schedule: parsed.schedule, problems: [] }
    : { schedule: undefined, problems: parsed.problems };
}

/** A checked digest time of day as the catalogue's `digestAt` takes it: `HH:MM`. */
export function digestAtText(schedule: Pick<DigestSchedule, 'hour' | 'minute'>): string {
  return `${String(schedule.hour).padStart(2, '0')}:${String(schedule.minute).padStart(2, '0')}`;
}
