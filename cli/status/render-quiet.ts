/**
 * The quiet time in the present of `shieldwatch status` (CONTRACT §15, §17), under the filter status: the active
 * silence or maintenance window occurrence (its pattern, end, time left and reason) and the next one to start.
 * Nothing when there is neither. Pure: text from the report.
 */
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import { clip, printable } from '../format.ts';
import type { Colours } from './render-filter.ts';
import type { StatusReport, StatusSilence } from './report-types.ts';

const reasonOf = (silence: StatusSilence): string =>
  silence.reason === null ? '' : `, reason: ${clip(printable(silence.reason), 60)}`;

export function renderQuiet(report: StatusReport, colour: Colours): string[] {
  const { active, next } = report.quiet;
  return [
    ...(active === null
      ? []
      : [
          `  silenced     ${colour.yellow(clip(printable(active.pattern), 40))} until ${active.endsAt} (${formatDuration(active.remainingMs)} left)${reasonOf(active)} (${printable(active.id)}: matching alerts are recorded, not sent)`,
        ]),
    ...(next === null
      ? []
      : [
          `  next quiet   ${clip(printable(next.pattern), 40)} from ${next.startsAt} until ${next.endsAt}${reasonOf(next)} (${printable(next.id)})`,
        ]),
  ];
}
