/**
 * The first lines of `shieldwatch status`: the confirmed filter status against the expected one and since when,
 * the status away's incident, a status not yet confirmed, the last filter snapshot. Pure: text from the report.
 */
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import { displayStatus } from '../../lambda/core/detect/status.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { clip, type palette, printable } from '../format.ts';
import { renderQuiet } from './render-quiet.ts';
import type { LastObservation, StatusReport } from './report-types.ts';

/** The colours of a table (none when not on a terminal). */
export type Colours = ReturnType<typeof palette>;

/** A status as the table quotes it. */
export const quoted = (status: string): string => clip(printable(JSON.stringify(displayStatus(status))), 60);

/** ` (HTTP 200, 34 ms)`; a failure's error already names its HTTP status, so then only the time. */
function answerOf(last: LastObservation): string {
  const parts = [
    ...(last.ok && last.httpStatus !== undefined ? [`HTTP ${last.httpStatus}`] : []),
    ...(last.latencyMs === undefined ? [] : [`${last.latencyMs} ms`]),
  ];
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

export function renderFilter(report: StatusReport, colour: Colours): string[] {
  const { filter } = report;
  const lines: string[] = [];
  if (filter.status === null) {
    lines.push('filter status  (none confirmed yet: no readable status has been observed)');
  } else {
    const shown = quoted(filter.status);
    const value =
      filter.standing === 'expected'
        ? `${colour.green(shown)} (expected)`
        : filter.standing === 'away'
          ? `${colour.red(shown)} (AWAY from expected ${quoted(filter.expected ?? '')})`
          : `${shown} (no expected status: set ${SETTINGS.expectedStatus.env} to mark it)`;
    const since =
      filter.since === null ? '' : `  since ${filter.since} (for ${formatDuration(filter.forMs ?? 0)})`;
    lines.push(`filter status  ${value}${since}`);
  }
  if (filter.incident !== null) {
    const ack = filter.incident.acknowledged;
    lines.push(
      `  incident     ${clip(printable(filter.incident.id), 60)}  stage ${filter.incident.stage}  ${
        ack === null
          ? colour.red('OPEN')
          : colour.yellow(`ACKNOWLEDGED by ${clip(printable(ack.by), 40)} at ${ack.at}`)
      }`,
    );
  }
  if (filter.candidate !== null) {
    lines.push(
      `  candidate    ${quoted(filter.candidate.status)} seen ${filter.candidate.count} cycle(s) in a row since ${filter.candidate.since}, not confirmed yet`,
    );
  }
  const last = filter.last;
  lines.push(
    last === null
      ? '  last seen    never (no filter snapshot stored)'
      : `  last seen    ${formatDuration(last.ageMs)} ago, ${last.at}: ${
          last.ok
            ? `${colour.green('ok')} ${quoted(last.status ?? '')}`
            : `${colour.red('FAIL')} ${clip(printable(last.error ?? ''), 100)}`
        }${answerOf(last)}`,
  );
  // The quiet time belongs to the present: right under the status it may be hiding alerts about.
  lines.push(...renderQuiet(report, colour));
  return lines;
}
