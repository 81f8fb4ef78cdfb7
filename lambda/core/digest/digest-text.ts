/**
 * The digest as plain text (CONTRACT §19): what `shieldwatch digest` prints and the body of the `monitor.digest`
 * email. Pure; hidden characters of stored texts (rule names, networks, reasons, statuses) are shown as
 * `<U+XXXX>` so that no stored value can reorder or hide a line.
 */
import { formatDuration } from '../alerts/alert-time.ts';
import { escapeHidden } from '../alerts/visible-text.ts';
import { displayStatus } from '../detect/status.ts';
import { UNREADABLE_STATUS } from '../uptime.ts';
import type { Digest, DigestSpread } from './digest.ts';

/** A share as a percentage: two decimals, one at the ends (`100.0%`, `0.0%`). */
export function digestPercent(share: number | null): string {
  if (share === null) return 'n/a';
  return `${(share * 100).toFixed(share >= 0.9995 || share === 0 ? 1 : 2)}%`;
}

/** A status as the digest names it: quoted, `(empty)` for the empty one, the unreadable time as it is. */
export function digestStatus(status: string): string {
  return status === UNREADABLE_STATUS ? status : JSON.stringify(displayStatus(status));
}

/** `median 4m, worst 12m (3 incidents)` or `none`. */
export function digestSpread(spread: DigestSpread): string {
  if (spread.count === 0 || spread.medianMs === null || spread.worstMs === null) return 'none';
  return `median ${formatDuration(spread.medianMs)}, worst ${formatDuration(spread.worstMs)} (${spread.count} incident${spread.count === 1 ? '' : 's'})`;
}

const clean = (text: string): string => escapeHidden(text, 'space');

/** The digest as lines of text. */
export function renderDigestText(digest: Digest): string {
  const i = digest.incidents;
  const lines = [
    `shieldwatch digest ${digest.since} .. ${digest.until}`,
    '',
    `incidents: ${i.opened} opened, ${i.resolved} resolved, ${i.openAtEnd} open at the end`,
  ];
  for (const k of i.byKind) lines.push(`  ${k.kind}: ${k.opened} opened, ${k.resolved} resolved`);
  if (i.byRule.length > 0) {
    lines.push('per rule:');
    for (const r of i.byRule) {
      lines.push(`  ${clean(r.rule)} (${r.kind}): ${r.opened} opened, ${r.resolved} resolved`);
    }
  }
  if (digest.worstNetworks.length > 0) {
    lines.push('worst networks by peak:');
    for (const r of digest.worstNetworks) {
      lines.push(
        `  ${clean(r.rule)}: ${r.networks
          .map((n) => `${clean(n.network)} ${n.peak}${n.peakAt === undefined ? '' : ` at ${n.peakAt}`}`)
          .join(', ')}`,
      );
    }
  }
  lines.push(
    '',
    `time to acknowledge: ${digestSpread(digest.response.timeToAcknowledge)}${digest.response.notAcknowledged === 0 ? '' : `; ${digest.response.notAcknowledged} not acknowledged`}`,
    `time to resolve:     ${digestSpread(digest.response.timeToResolve)}`,
    '',
  );
  const f = digest.filter;
  if (f.statuses.length === 0) lines.push('filter status: no snapshot in the period');
  else {
    lines.push(
      `filter status (share of ${formatDuration(f.monitoredMs)} monitored${f.notMonitoredMs === 0 ? '' : `, ${formatDuration(f.notMonitoredMs)} not monitored`}):`,
    );
    for (const s of f.statuses) {
      lines.push(`  ${clean(digestStatus(s.status))}: ${digestPercent(s.share)} (${formatDuration(s.ms)})`);
    }
  }
  const a = digest.availability;
  lines.push(
    a.cycles === 0
      ? 'API availability: no cycle in the period'
      : `API availability: ${digestPercent(a.share)} of cycles answered (${a.answeredCycles} of ${a.cycles}), ${digestPercent(a.timeShare)} of monitored time`,
    '',
  );
  if (digest.silences.length === 0) lines.push('silences and maintenance windows: none');
  else {
    lines.push('silences and maintenance windows:');
    for (const s of digest.silences) {
      lines.push(
        `  ${s.kind} ${s.id} ${s.startsAt} .. ${s.endsAt} (${clean(s.pattern)})${s.repeat === undefined ? '' : ` repeats ${clean(s.repeat)}`}${s.reason === undefined ? '' : `: ${clean(s.reason)}`}`,
      );
    }
  }
  return lines.join('\n');
}
