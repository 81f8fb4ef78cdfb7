/**
 * The alerts pending in `shieldwatch status`: every outbox (the monitor's, each rule item's, each incident's and
 * each shard's health item), decided but not yet published, counted per outbox. Pure: text from the report.
 */
import { clip, printable, renderTable } from '../format.ts';
import { type Colours, quoted } from './render-filter.ts';
import type { StatusReport } from './report-types.ts';

export function renderPending(report: StatusReport, colour: Colours): string[] {
  const lines: string[] = [];
  if (report.pending.length === 0) {
    lines.push(`pending alerts ${colour.green('none')} (every outbox is empty)`);
  } else {
    lines.push(
      `pending alerts ${colour.yellow(String(report.pending.length))} (in the outbox, sent by the next cycle): ${report.outboxes
        .map((o) => `${o.outbox} ${o.pending}`)
        .join(', ')}`,
    );
    const rows = report.pending.map((alert) => [
      alert.outbox,
      String(alert.seq),
      alert.event,
      alert.at,
      alert.rule !== null
        ? clip(
            printable(
              `${alert.rule} on ${alert.network ?? '?'}${alert.value === null ? '' : `: ${String(alert.value)}`}`,
            ),
            60,
          )
        : alert.from === null && alert.to === null
          ? '-'
          : `${alert.from === null ? '-' : quoted(alert.from)} -> ${alert.to === null ? '-' : quoted(alert.to)}`,
      `${alert.failures}${alert.claimed ? ' (being sent)' : ''}`,
      clip(printable(alert.lastError ?? ''), 80),
    ]);
    lines.push(
      renderTable(['outbox', 'seq', 'event', 'at', 'what', 'failures', 'last error'], rows).replace(
        /^/gm,
        '  ',
      ),
    );
  }
  return lines;
}
