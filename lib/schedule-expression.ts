/**
 * EventBridge Scheduler schedule expressions (context `schedule`): the grammar Scheduler accepts, checked at
 * synth time so that an expression CloudFormation would pass and Scheduler refuse when the schedule is created
 * (a step past its field's range, a day-of-week step, `*` in both day fields) fails `cdk synth` instead, and
 * the intervals between runs that size the function's timeout and the monitor's alarms.
 *
 * The grammar is that of the Scheduler user guide, "Schedule types" (rate-based and cron-based schedules):
 * `rate(value unit)` with a positive whole value and `minute`/`hour`/`day` singular for 1, plural above;
 * `cron(Minutes Hours Day-of-month Month Day-of-week Year)` with the values and wildcards of {@link CRON_FIELDS}.
 * Pure: no CDK.
 */
import { type Parsed, show } from './context-values.ts';

/** When the poller runs: the expression as given, and what it means for sizing and alarms. */
export interface ScheduleSpec {
  /** An EventBridge Scheduler expression, `rate(...)` or `cron(...)`. */
  readonly expression: string;
  /** Shortest time between two runs, in minutes. Sizes the function timeout and the retry window. */
  readonly minIntervalMinutes: number;
  /** Longest time between two runs, in minutes. The period of the "no completed cycle" alarm. */
  readonly maxIntervalMinutes: number;
}

/** Default poll schedule. */
export const DEFAULT_SCHEDULE = 'rate(1 minute)';

/** Longest interval between runs: the no-cycle alarm watches three of them, and a monitor should run daily. */
export const MAX_INTERVAL_MINUTES = 24 * 60;

/** One field of a cron expression, as Scheduler accepts it. */
export interface CronFieldSpec {
  readonly name: 'Minutes' | 'Hours' | 'Day-of-month' | 'Month' | 'Day-of-week' | 'Year';
  readonly min: number;
  readonly max: number;
  /**
   * Largest increment after `/`: the field's largest value (Scheduler refuses `*\/60` minutes, `0/24`
   * hours, `*\/32` days), for the year its span.
   * @default - no `/` in this field
   */
  readonly maxStep?: number;
  /** Names accepted for the values from `min` on (`JAN` for 1, `SUN` for 1), any case. */
  readonly names?: readonly string[];
  /** Whether `?` (any) may stand for the whole field: the two day fields only. */
  readonly any?: boolean;
}

/** The six fields, in order, with their values and wildcards. */
export const CRON_FIELDS: readonly CronFieldSpec[] = [
  { name: 'Minutes', min: 0, max: 59, maxStep: 59 },
  { name: 'Hours', min: 0, max: 23, maxStep: 23 },
  { name: 'Day-of-month', min: 1, max: 31, maxStep: 31, any: true },
  {
    name: 'Month',
    min: 1,
    max: 12,
    maxStep: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  {
    name: 'Day-of-week',
    min: 1,
    max: 7,
    names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
    any: true,
  },
  { name: 'Year', min: 1970, max: 2199, maxStep: 229 },
];

const SCHEDULE_HELP =
  'expected rate(1 minute), rate(N minutes|hours), rate(1 day) or cron(Minutes Hours * * ? *)';

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = (problem: string): Parsed<never> => ({ ok: false, problem });

/**
 * Validates an EventBridge Scheduler expression and works out the intervals between its runs.
 * Cron expressions must also run every day (every day of the month or week, every month and year): the
 * no-cycle alarm expects a run in every interval, so a schedule with idle days would page every weekend.
 */
export function parseScheduleExpression(value: unknown): Parsed<ScheduleSpec> {
  if (typeof value !== 'string') return fail(`${SCHEDULE_HELP}, got ${show(value)}`);
  const expression = value.trim();
  const intervals = expression.startsWith('cron(')
    ? cronIntervals(expression)
    : expression.startsWith('rate(')
      ? rateIntervals(expression)
      : expression.startsWith('at(')
        ? fail('a one-time at(...) schedule would poll once; use rate(...) or cron(...)')
        : fail(`not a rate or cron expression; ${SCHEDULE_HELP}`);
  if (!intervals.ok) return fail(`${show(value)}: ${intervals.problem}`);
  const [minIntervalMinutes, maxIntervalMinutes] = intervals.value;
  if (maxIntervalMinutes > MAX_INTERVAL_MINUTES) {
    return fail(`${show(value)} runs less than once a day; the monitor must run at least daily`);
  }
  return ok({ expression, minIntervalMinutes, maxIntervalMinutes });
}

const RATE_UNITS: Readonly<Record<string, number>> = { minute: 1, hour: 60, day: 1440 };

function rateIntervals(expression: string): Parsed<[number, number]> {
  const match = /^rate\((\S*) (\S*)\)$/.exec(expression);
  if (match === null) return fail('a rate expression is rate(value unit), e.g. rate(5 minutes)');
  const [, count, unitText] = match as unknown as [string, string, string];
  const unit = unitText.replace(/s$/, '');
  if (!/^[1-9][0-9]*$/.test(count)) {
    return fail(`the value of a rate must be a positive whole number, got ${show(count)}`);
  }
  if (RATE_UNITS[unit] === undefined) {
    return fail(`the unit of a rate must be minute(s), hour(s) or day(s), got ${show(unitText)}`);
  }
  const n = Number(count);
  if ((n === 1) !== (unitText === unit)) {
    // Only the form that applies to this value: "rate(1 minutes) for more" would read as nonsense.
    return fail(
      n === 1
        ? `write rate(1 ${unit}): one ${unit} takes the singular (EventBridge refuses "${unitText}" here)`
        : `write rate(${n} ${unit}s): more than one ${unit} takes the plural (EventBridge refuses "${unitText}" here)`,
    );
  }
  const minutes = n * RATE_UNITS[unit]!;
  return ok([minutes, minutes]);
}

/** A field's values, or how it restricts them in a way no value set says (`L`, `W`, `#`, `?`). */
interface FieldValues {
  readonly values: ReadonlySet<number>;
  /** `?`: any value, decided by the other day field. */
  readonly any: boolean;
  /** `L`, `W` or `#`: some days only, which days depending on the month. */
  readonly special: boolean;
}

function cronIntervals(expression: string): Parsed<[number, number]> {
  const match = /^cron\((.*)\)$/.exec(expression);
  const fields = match?.[1]?.trim().split(/\s+/) ?? [];
  if (fields.length !== 6) {
    return fail('a cron expression has six fields: cron(Minutes Hours Day-of-month Month Day-of-week Year)');
  }
  const parsed: FieldValues[] = [];
  for (const [i, spec] of CRON_FIELDS.entries()) {
    const field = parseCronField(fields[i]!, spec);
    if (!field.ok) return fail(`${spec.name} field ${show(fields[i])}: ${field.problem}`);
    parsed.push(field.value);
  }
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = parsed as [FieldValues, ...FieldValues[]];
  if (dayOfMonth!.any === dayOfWeek!.any) {
    return fail(
      'exactly one of Day-of-month and Day-of-week must be ? (e.g. * * ? for every day): ' +
        (dayOfMonth!.any ? 'both are ?' : 'neither is ?'),
    );
  }
  const full = (field: FieldValues, spec: CronFieldSpec) =>
    field.any || (!field.special && field.values.size === spec.max - spec.min + 1);
  const everyDay = [dayOfMonth, month, dayOfWeek, year].every((field, i) =>
    full(field!, CRON_FIELDS[i + 2]!),
  );
  if (!everyDay) {
    return fail(
      'the monitor must run every day: use * * ? * for Day-of-month Month Day-of-week Year ' +
        '(the no-cycle alarm would fire on idle days)',
    );
  }
  const runs = [...hours!.values]
    .flatMap((h) => [...minutes!.values].map((m) => h * 60 + m))
    .sort((a, b) => a - b);
  const gaps = runs.map((run, i) => (i + 1 < runs.length ? runs[i + 1]! : runs[0]! + 1440) - run);
  return ok([Math.min(...gaps), Math.max(...gaps)]);
}

/**
 * One field: `?` alone (day fields), or items joined by commas, each `*`, a value or `a-b`, optionally with
 * `/step` (not in Day-of-week); or, alone, the day wildcards `L`, `LW`, `nW` (Day-of-month), `L`, `nL`,
 * `n#k` (Day-of-week). A range that runs past the field's end wraps around (`22-2` hours, `FRI-MON`).
 */
export function parseCronField(field: string, spec: CronFieldSpec): Parsed<FieldValues> {
  const text = field.toUpperCase();
  if (text === '?') {
    return spec.any === true
      ? ok({ values: new Set(), any: true, special: false })
      : fail(`? is allowed only in Day-of-month and Day-of-week; ${expectedForms(spec)}`);
  }
  const special = specialDay(text, spec);
  if (special !== undefined) return special;
  if (spec.any === true && /[LW#]/.test(text.replace(/[A-Z]{3}/g, ''))) {
    return fail(`${wildcardsOf(spec)} stands alone in the field, not in a list; ${expectedForms(spec)}`);
  }
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const parsed = parseItem(item, spec);
    if (!parsed.ok) return parsed;
    for (const v of parsed.value) values.add(v);
  }
  return ok({ values, any: false, special: false });
}

/** The `L`, `W` and `#` forms, each the whole field; undefined when the field is none of them. */
function specialDay(text: string, spec: CronFieldSpec): Parsed<FieldValues> | undefined {
  const special = ok({ values: new Set<number>(), any: false, special: true });
  if (spec.name === 'Day-of-month') {
    if (text === 'L' || text === 'LW') return special;
    const weekday = /^([0-9]+)W$/.exec(text);
    if (weekday === null) return undefined;
    return inRange(Number(weekday[1]), spec)
      ? special
      : fail(`${valuesWithin(spec)}, not ${show(weekday[1])}`);
  }
  if (spec.name === 'Day-of-week') {
    if (text === 'L') return special;
    const last = /^([0-9]+|[A-Z]{3})L$/.exec(text);
    const nth = /^([0-9]+|[A-Z]{3})#([0-9]+)$/.exec(text);
    const day = last?.[1] ?? nth?.[1];
    if (day === undefined) return undefined;
    const value = cronValue(day, spec);
    if (value === undefined) return fail(`${valuesWithin(spec)}, not ${show(day)}`);
    if (nth !== null && !/^[1-5]$/.test(nth[2]!)) {
      return fail('the week after # is 1 to 5 (the 1st to 5th such day of the month)');
    }
    return special;
  }
  return undefined;
}

function parseItem(item: string, spec: CronFieldSpec): Parsed<number[]> {
  const match = /^(\*|[0-9A-Z]+(?:-[0-9A-Z]+)?)(?:\/([0-9]*))?$/.exec(item);
  if (match === null) return fail(expectedForms(spec));
  const [, base, stepText] = match as unknown as [string, string, string | undefined];
  if (stepText !== undefined) {
    if (spec.maxStep === undefined) return fail(`${spec.name} takes no /step; ${expectedForms(spec)}`);
    const step = Number(stepText);
    if (!/^[0-9]+$/.test(stepText) || step < 1 || step > spec.maxStep) {
      return fail(
        `step ${show(stepText)} is outside the field's range: a step is 1 to ${spec.maxStep} ` +
          `(values ${spec.min}-${spec.max})`,
      );
    }
  }
  const [startText, endText] = base === '*' ? [] : base.split('-');
  const from = startText === undefined ? spec.min : cronValue(startText, spec);
  const to =
    endText !== undefined
      ? cronValue(endText, spec)
      : startText === undefined || stepText !== undefined
        ? spec.max
        : from;
  if (from === undefined || to === undefined) {
    const bad = [startText, endText].find((t) => t !== undefined && cronValue(t, spec) === undefined);
    return /^[0-9]+$/.test(bad ?? '')
      ? fail(`${valuesWithin(spec)}, not ${show(bad)}`)
      : fail(expectedForms(spec));
  }
  if (from > to && spec.name === 'Year') return fail(`the range ${base} runs backwards`);
  const span = spec.max - spec.min + 1;
  const length = (to - from + span) % span;
  const by = stepText === undefined ? 1 : Number(stepText);
  const values: number[] = [];
  for (let i = 0; i <= length; i += by) values.push(spec.min + ((from - spec.min + i) % span));
  return ok(values);
}

function cronValue(text: string, spec: CronFieldSpec): number | undefined {
  const named = spec.names?.indexOf(text) ?? -1;
  if (named >= 0) return spec.min + named;
  if (!/^[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return inRange(value, spec) ? value : undefined;
}

const inRange = (value: number, spec: CronFieldSpec) => value >= spec.min && value <= spec.max;

function valuesWithin(spec: CronFieldSpec): string {
  const names = spec.names === undefined ? '' : ` or ${spec.names[0]}-${spec.names[spec.names.length - 1]}`;
  return `values must be within ${spec.min}-${spec.max}${names}`;
}

function wildcardsOf(spec: CronFieldSpec): string {
  return spec.name === 'Day-of-month' ? 'L or W' : 'L or #';
}

function expectedForms(spec: CronFieldSpec): string {
  const step = spec.maxStep === undefined ? '' : ', */n or a/n (n from 1 to ' + `${spec.maxStep})`;
  const day =
    spec.name === 'Day-of-month'
      ? ', ?, L, LW or nW'
      : spec.name === 'Day-of-week'
        ? ', ?, L, nL or n#k'
        : '';
  return `expected *, n, a-b${step}${day}, joined by commas; ${valuesWithin(spec)}`;
}
