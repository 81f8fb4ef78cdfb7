/**
 * The monitor's networks in `shieldwatch status` (as its last cycle recorded them, or `--networks`), each with its
 * last figures or error and their age, then the rules in force. Pure: text from the report.
 */
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import { clip, printable, renderTable } from '../format.ts';
import type { Colours } from './render-filter.ts';
import type { StatusReport } from './report-types.ts';

export function renderNetworks(report: StatusReport, colour: Colours): string[] {
  const lines: string[] = [];
  const { monitor } = report;
  if (report.networksFrom === 'option') {
    lines.push('networks       as given by --networks');
  } else if (monitor.lastCycleAt === null) {
    lines.push(
      monitor.networks.length === 0
        ? 'networks       none recorded yet: no cycle of this version of the monitor has been applied to this store'
        : `networks       ${monitor.networks.length} judged by the monitor's rules (its last cycle recorded no list)`,
    );
  } else {
    lines.push(
      `networks       ${monitor.networks.length} polled by the monitor (its record of its last cycle, ${monitor.lastCycleAt}, ${formatDuration(Math.max(0, Date.parse(report.at) - Date.parse(monitor.lastCycleAt)))} ago)`,
    );
  }
  if (report.networks.length === 0) {
    if (report.networksFrom === 'monitor' && monitor.lastCycleAt !== null)
      lines.push('  none: the monitor polls the filter status only');
  } else {
    const rows = report.networks.map(({ id, last: seen }) => [
      clip(printable(id), 40),
      seen === null ? '-' : `${formatDuration(seen.ageMs)} ago`,
      seen === null ? 'never' : seen.ok ? colour.green('ok') : colour.red('FAIL'),
      seen === null
        ? 'no snapshot stored'
        : clip(
            printable(
              seen.ok
                ? Object.entries(seen.figures ?? {})
                    .map(([path, value]) => `${path}=${value}`)
                    .join(' ') || '(no numeric fields)'
                : (seen.error ?? ''),
            ),
            100,
          ),
    ]);
    lines.push(renderTable(['id', 'age', 'result', 'figures / error'], rows).replace(/^/gm, '  '));
    const more = report.networksFrom === 'monitor' ? monitor.networks.length - report.networks.length : 0;
    if (more > 0)
      lines.push(`  ... and ${more} more (--networks A,B shows given ones; --format json lists them all)`);
  }
  return lines;
}
