/**
 * `shieldwatch incidents --stats` as a table: the counts per kind and per rule, then the time to acknowledge,
 * the time to resolve (the duration) and the open incidents' time so far, each with its median, 90th
 * percentile and worst (lambda/core/incidents/response-times.ts). Pure: text from the figures.
 */
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import type { ResponseStats, Spread } from '../../lambda/core/incidents/response-times.ts';
import { clip, printable, renderTable } from '../format.ts';

const figure = (value: number | null): string => (value === null ? '-' : formatDuration(value));

function spreadRow(label: string, spread: Spread): string[] {
  return [label, String(spread.count), figure(spread.medianMs), figure(spread.p90Ms), figure(spread.worstMs)];
}

/** The table of `stats` over the incidents of `window` (`open`: only the open ones were picked). */
export function renderStats(
  stats: ResponseStats,
  window: { readonly since: string; readonly until: string },
  open: boolean,
): string {
  const head = `incidents ${open ? 'open' : 'open or ended'} since ${window.since} (until ${window.until}): ${stats.count}, ${stats.open} open, ${stats.resolved} resolved`;
  if (stats.count === 0) return `${head}\nno incident: no figure`;
  const lines = [
    head,
    '',
    renderTable(
      ['KIND', 'COUNT', 'OPEN', 'RESOLVED'],
      stats.byKind.map((k) => [k.kind, String(k.count), String(k.open), String(k.resolved)]),
    ),
  ];
  if (stats.byRule.length > 0) {
    lines.push(
      '',
      renderTable(
        ['RULE', 'KIND', 'COUNT', 'OPEN', 'RESOLVED'],
        stats.byRule.map((r) => [
          clip(printable(r.rule), 40),
          r.kind,
          String(r.count),
          String(r.open),
          String(r.resolved),
        ]),
      ),
    );
  }
  lines.push(
    '',
    renderTable(
      ['TIME', 'INCIDENTS', 'MEDIAN', 'P90', 'WORST'],
      [
        spreadRow('to acknowledge', stats.timeToAcknowledge),
        spreadRow('to resolve (duration)', stats.timeToResolve),
        spreadRow('open so far (apart)', stats.openSoFar),
      ],
    ),
    '',
    `never acknowledged: ${stats.notAcknowledged.resolved} resolved, ${stats.notAcknowledged.open} open (in no time to acknowledge)`,
    ...(stats.resolvedWithoutEnd === 0
      ? []
      : [`resolved without a recorded end: ${stats.resolvedWithoutEnd} (in no time to resolve)`]),
    'open incidents are in neither time: "open so far" is how long each has been open until now',
    'percentiles by nearest rank: the p-th of n sorted times has rank ceil(p/100 * n); the median is the 50th',
  );
  return lines.join('\n');
}
