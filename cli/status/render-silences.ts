/**
 * The silences in `shieldwatch status`: the active ones with their pattern, end, time left and reason, and those
 * set to start later. Pure: text from the report.
 */
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import { clip, printable, renderTable } from '../format.ts';
import type { Colours } from './render-filter.ts';
import type { StatusReport } from './report-types.ts';

export function renderSilences(report: StatusReport, colour: Colours): string[] {
  const lines: string[] = [];
  if (report.silences.length === 0) {
    lines.push(`silences       ${colour.green('none active')}`);
  } else {
    const active = report.silences.filter((x) => x.status === 'active').length;
    lines.push(
      `silences       ${colour.yellow(`${active} active`)}${active === report.silences.length ? '' : `, ${report.silences.length - active} to start`} (matching alerts are recorded, not sent)`,
    );
    const rows = report.silences.map((silence) => [
      silence.id,
      clip(printable(silence.pattern), 40),
      silence.status === 'active'
        ? `until ${silence.endsAt} (${formatDuration(silence.remainingMs)} left)`
        : `from ${silence.startsAt} until ${silence.endsAt}`,
      clip(printable(silence.reason ?? ''), 60),
    ]);
    lines.push(renderTable(['id', 'events', 'time', 'reason'], rows).replace(/^/gm, '  '));
  }

  return lines;
}
