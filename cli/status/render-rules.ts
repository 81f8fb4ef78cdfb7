/** The rules in force in `shieldwatch status`, as the monitor last applied them. Pure: text from the report. */
import { clip, printable } from '../format.ts';
import type { StatusReport } from './report-types.ts';

export function renderRules(report: StatusReport): string[] {
  const lines: string[] = [];
  const { monitor } = report;
  if (monitor.lastCycleAt === null) {
    lines.push('rules          none recorded yet');
  } else if (monitor.rules.length === 0) {
    lines.push('rules          none in force');
  } else {
    lines.push(`rules          ${monitor.rules.length} in force`);
    for (const text of monitor.rules) lines.push(`  ${clip(printable(text), 150)}`);
  }
  return lines;
}
