import { describe, expect, it } from 'vitest';
import { ContextError, parseMonitorContext } from '../../lib/context.ts';
import { CRON_FIELDS, parseCronField, parseScheduleExpression } from '../../lib/schedule-expression.ts';

const field = (name: string) => CRON_FIELDS.find((spec) => spec.name === name)!;

/** The `schedule` problem of a context with this expression, or undefined when it is accepted. */
function scheduleProblem(schedule: string): string | undefined {
  try {
    parseMonitorContext({ apiUrl: 'https://api.example.com', schedule });
    return undefined;
  } catch (error) {
    if (!(error instanceof ContextError)) throw error;
    return error.problems.find((p) => p.startsWith('schedule: '));
  }
}

describe('parseScheduleExpression', () => {
  it.each([
    ['rate(1 minute)', 1, 1],
    ['rate(15 minutes)', 15, 15],
    ['rate(1 hour)', 60, 60],
    ['rate(8 hours)', 480, 480],
    ['rate(24 hours)', 1440, 1440],
    ['rate(1440 minutes)', 1440, 1440],
    ['rate(1 day)', 1440, 1440],
    ['cron(* * * * ? *)', 1, 1],
    ['cron(0/5 * * * ? *)', 5, 5],
    ['cron(*/10 * ? * * *)', 10, 10],
    ['cron(0 * * * ? *)', 60, 60],
    ['cron(0,15 * * * ? *)', 15, 45],
    ['cron(0 8-20 * * ? *)', 60, 720],
    ['cron(30 6,18 * * ? *)', 720, 720],
    ['cron(0 12 * * ? *)', 1440, 1440],
    ['  rate(2 minutes)  ', 2, 2],
    // At each field's range: the largest step, the last value, every value written out.
    ['cron(*/59 * * * ? *)', 1, 59],
    ['cron(59 23 * * ? *)', 1440, 1440],
    ['cron(0 0/23 * * ? *)', 60, 1380],
    ['cron(0 22-1 * * ? *)', 60, 1260],
    ['cron(0 0 1-31 * ? *)', 1440, 1440],
    ['cron(0 0 1/1 * ? *)', 1440, 1440],
    ['cron(0 0 * 1-12 ? *)', 1440, 1440],
    ['cron(0 0 * JAN-DEC ? *)', 1440, 1440],
    ['cron(0 0 * jan-dec ? *)', 1440, 1440],
    ['cron(0 0 ? * 1-7 *)', 1440, 1440],
    ['cron(0 0 ? * SUN-SAT *)', 1440, 1440],
    ['cron(0 0 ? * MON-SUN *)', 1440, 1440],
    ['cron(0 0 * * ? 1970-2199)', 1440, 1440],
    ['cron(0 0 * * ? 1970/1)', 1440, 1440],
  ])('%s runs every %i to %i minutes', (expression, min, max) => {
    // Act
    const parsed = parseScheduleExpression(expression);

    // Assess
    expect(parsed).toEqual({
      ok: true,
      value: { expression: expression.trim(), minIntervalMinutes: min, maxIntervalMinutes: max },
    });
  });

  it.each([
    // rate: value and unit
    ['rate(0 minutes)', /value of a rate must be a positive whole number, got "0"/],
    ['rate(-5 minutes)', /value of a rate must be a positive whole number/],
    ['rate(1.5 hours)', /value of a rate must be a positive whole number, got "1\.5"/],
    ['rate(05 minutes)', /value of a rate must be a positive whole number/],
    ['rate(30 seconds)', /unit of a rate must be minute\(s\), hour\(s\) or day\(s\), got "seconds"/],
    ['rate(1 week)', /unit of a rate must be minute/],
    ['rate(5 Minutes)', /unit of a rate must be minute/],
    [
      'rate(1 minutes)',
      /^"rate\(1 minutes\)": write rate\(1 minute\): one minute takes the singular \(EventBridge refuses "minutes" here\)$/,
    ],
    [
      'rate(2 hour)',
      /^"rate\(2 hour\)": write rate\(2 hours\): more than one hour takes the plural \(EventBridge refuses "hour" here\)$/,
    ],
    ['rate(5minutes)', /a rate expression is rate\(value unit\)/],
    ['rate(5  minutes)', /a rate expression is rate\(value unit\)/],
    ['rate(1441 minutes)', /runs less than once a day/],
    ['rate(25 hours)', /runs less than once a day/],
    ['rate(2 days)', /runs less than once a day/],
    ['at(2030-01-01T00:00:00)', /one-time at\(\.\.\.\) schedule would poll once/],
    ['every minute', /not a rate or cron expression/],
    // cron: shape
    ['cron(0 12 * * ?)', /six fields/],
    ['cron(0 12 * * ? * *)', /six fields/],
    // steps past each field's range
    [
      'cron(*/60 * * * ? *)',
      /Minutes field "\*\/60": step "60" is outside the field's range: a step is 1 to 59/,
    ],
    ['cron(0/60 * * * ? *)', /Minutes field "0\/60": step "60"/],
    ['cron(0 0/24 * * ? *)', /Hours field "0\/24": step "24" .* 1 to 23/],
    ['cron(0 0/25 * * ? *)', /Hours field "0\/25": step "25"/],
    ['cron(0 0 */32 * ? *)', /Day-of-month field "\*\/32": step "32" .* 1 to 31/],
    ['cron(0 0 * */13 ? *)', /Month field "\*\/13": step "13" .* 1 to 12/],
    ['cron(0 0 * * ? */230)', /Year field "\*\/230": step "230" .* 1 to 229/],
    ['cron(*/0 * * * ? *)', /Minutes field "\*\/0": step "0"/],
    ['cron(*/ * * * ? *)', /Minutes field "\*\/": step ""/],
    ['cron(0 0 ? * */2 *)', /Day-of-week field "\*\/2": Day-of-week takes no \/step/],
    // values past each field's range
    ['cron(60 * * * ? *)', /Minutes field "60": values must be within 0-59, not "60"/],
    ['cron(0-60 * * * ? *)', /Minutes field "0-60": values must be within 0-59/],
    ['cron(0 24 * * ? *)', /Hours field "24": values must be within 0-23/],
    ['cron(0 0 0 * ? *)', /Day-of-month field "0": values must be within 1-31/],
    ['cron(0 0 32 * ? *)', /Day-of-month field "32": values must be within 1-31/],
    ['cron(0 0 32W * ? *)', /Day-of-month field "32W": values must be within 1-31/],
    ['cron(0 0 * 0 ? *)', /Month field "0": values must be within 1-12 or JAN-DEC/],
    ['cron(0 0 * 13 ? *)', /Month field "13": values must be within 1-12/],
    ['cron(0 0 * JANUARY ? *)', /Month field "JANUARY": expected .*; values must be within 1-12 or JAN-DEC$/],
    ['cron(0 0 ? * 0 *)', /Day-of-week field "0": values must be within 1-7 or SUN-SAT/],
    ['cron(0 0 ? * 8 *)', /Day-of-week field "8": values must be within 1-7/],
    ['cron(0 0 ? * 8L *)', /Day-of-week field "8L": values must be within 1-7/],
    ['cron(0 0 ? * 2#6 *)', /Day-of-week field "2#6": the week after # is 1 to 5/],
    ['cron(0 0 * * ? 1969)', /Year field "1969": values must be within 1970-2199/],
    ['cron(0 0 * * ? 2200)', /Year field "2200": values must be within 1970-2199/],
    ['cron(0 0 * * ? 2030-2025)', /Year field "2030-2025": the range 2030-2025 runs backwards/],
    // wildcards where they do not belong
    ['cron(? * * * ? *)', /Minutes field "\?": \? is allowed only in Day-of-month and Day-of-week/],
    ['cron(0 0 * * * *)', /exactly one of Day-of-month and Day-of-week must be \?.*neither is \?/],
    ['cron(0 0 ? * ? *)', /exactly one of Day-of-month and Day-of-week must be \?.*both are \?/],
    ['cron(0 0 L,1 * ? *)', /Day-of-month field "L,1": L or W stands alone/],
    ['cron(0 0 ? * 2#1,6#3 *)', /Day-of-week field "2#1,6#3": L or # stands alone/],
    ['cron(L * * * ? *)', /Minutes field "L": expected \*, n, a-b/],
    ['cron(a * * * ? *)', /Minutes field "a": expected/],
    ['cron(1--2 * * * ? *)', /Minutes field "1--2": expected/],
    // valid for Scheduler, but not every day
    ['cron(0 9 ? * MON-FRI *)', /must run every day/],
    ['cron(0 9 1 * ? *)', /must run every day/],
    ['cron(0 9 L * ? *)', /must run every day/],
    ['cron(0 9 15W * ? *)', /must run every day/],
    ['cron(0 9 ? * 6#3 *)', /must run every day/],
    ['cron(0 9 ? * 6L *)', /must run every day/],
    ['cron(0 9 * 1-11 ? *)', /must run every day/],
    ['cron(0 9 * * ? 2030)', /must run every day/],
    ['cron(0 0 */31 * ? *)', /must run every day/],
  ])('refuses %s', (expression, problem) => {
    // Act
    const parsed = parseScheduleExpression(expression);

    // Assess
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toMatch(problem);
    expect(parsed.ok ? '' : parsed.problem).toContain(JSON.stringify(expression));
  });
});

describe('parseCronField: each field at and past its range', () => {
  it.each([
    ['Minutes', '0', '59', '*/59', '60', '*/60'],
    ['Hours', '0', '23', '0/23', '24', '0/24'],
    ['Day-of-month', '1', '31', '*/31', '32', '*/32'],
    ['Month', '1', '12', '*/12', '13', '*/13'],
    ['Day-of-week', '1', '7', 'SAT', '8', '*/1'],
    ['Year', '1970', '2199', '*/229', '2200', '*/230'],
  ])('%s: accepts %s, %s and %s; refuses %s and %s', (name, first, last, widest, past, pastStep) => {
    // Prepare
    const spec = field(name);

    // Act
    const accepted = [first, last, widest].map((text) => parseCronField(text, spec).ok);
    const refused = [past, pastStep, String(spec.min - 1)].map((text) => parseCronField(text, spec).ok);

    // Assess
    expect(accepted).toEqual([true, true, true]);
    expect(refused).toEqual([false, false, false]);
  });

  it.each([
    ['Hours', '22-1', [22, 23, 0, 1]],
    ['Hours', '20-4/3', [20, 23, 2]],
    ['Minutes', '5/20', [5, 25, 45]],
    ['Day-of-week', 'FRI-MON', [6, 7, 1, 2]],
    ['Month', 'NOV-FEB', [11, 12, 1, 2]],
  ])('%s %s wraps around to %j', (name, text, values) => {
    // Act
    const parsed = parseCronField(text, field(name));

    // Assess
    expect(parsed.ok && [...parsed.value.values]).toEqual(values);
  });
});

describe('the schedule context key', () => {
  it.each([
    ['cron(*/60 * * * ? *)'],
    ['cron(0 0/25 * * ? *)'],
    ['cron(0 0 */32 * ? *)'],
    ['rate(0 minutes)'],
    ['rate(5 weeks)'],
  ])('names schedule and the expression when %s is refused', (schedule) => {
    // Act
    const problem = scheduleProblem(schedule);

    // Assess
    expect(problem).toMatch(/^schedule: /);
    expect(problem).toContain(JSON.stringify(schedule));
  });

  it('accepts an expression at every field range limit', () => {
    expect(scheduleProblem('cron(*/59 0/23 ? * SUN-SAT 1970-2199)')).toBeUndefined();
  });
});
