/**
 * The open incidents in `shieldwatch status`, one table per shape: the API's (open or counting), a rule's across
 * networks (one row per incident, its networks with their peaks), the blind spots, a rule's on one network (a
 * rule not grouped: the value it reads now). Pure: text from the report.
 */
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import { clip, printable, renderTable } from '../format.ts';
import type { Colours } from './render-filter.ts';
import type { StatusReport } from './report-types.ts';

export function renderIncidents(report: StatusReport, colour: Colours): string[] {
  const lines: string[] = [];
  const since = (at: string | null, forMs: number | null): string =>
    at === null ? '-' : `since ${at} (for ${formatDuration(forMs ?? 0)})`;
  // A rule whose networks form one open incident (SHIELDWATCH_GROUP_BY=rule) shows as that incident, one row;
  // the per-network rows are for rules that are not grouped (SHIELDWATCH_GROUP_BY=none).
  const groupedRules = new Set(report.groupedIncidents.map((incident) => incident.rule));
  const perNetwork = report.ruleIncidents.filter((incident) => !groupedRules.has(incident.rule));
  const openCount =
    report.incidents.filter((i) => i.open).length +
    report.groupedIncidents.length +
    report.networkIncidents.length +
    perNetwork.length;
  if (
    report.incidents.length === 0 &&
    report.groupedIncidents.length === 0 &&
    report.networkIncidents.length === 0 &&
    perNetwork.length === 0
  ) {
    lines.push(`incidents      ${colour.green('none open')}`);
  } else {
    lines.push(
      `incidents      ${openCount === 0 ? colour.green('none open') : colour.red(`${openCount} open`)}`,
    );
    if (report.incidents.length > 0) {
      const rows = report.incidents.map((incident) => [
        incident.kind,
        incident.acknowledged !== null
          ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged.by), 40)}`)
          : incident.open
            ? colour.red('OPEN')
            : colour.yellow('counting'),
        since(incident.since, incident.forMs),
        String(incident.cycles),
        clip(printable(incident.lastError ?? ''), 80),
        incident.id === null ? '-' : clip(printable(incident.id), 60),
      ]);
      lines.push(
        renderTable(['api', 'state', 'since', 'cycles', 'last error', 'incident'], rows).replace(/^/gm, '  '),
      );
    }
    if (report.groupedIncidents.length > 0) {
      const rows = report.groupedIncidents.map((incident) => {
        const active = incident.networks.filter((n) => n.active);
        const listed = active
          .slice(0, 5)
          .map((n) => `${n.network} peak ${n.peak === null ? '-' : String(n.peak)}`)
          .join(', ');
        const more = active.length > 5 ? `, +${active.length - 5} more` : '';
        const left = incident.networks.length - active.length;
        return [
          clip(printable(incident.id), 60),
          clip(printable(incident.rule), 40),
          incident.state === 'acknowledged'
            ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged?.by ?? '?'), 40)}`)
            : colour.red('OPEN'),
          since(incident.since, incident.forMs),
          clip(printable(`${active.length}: ${listed}${more}${left > 0 ? ` (${left} resolved)` : ''}`), 120),
        ];
      });
      lines.push(
        renderTable(['incident', 'rule', 'state', 'since', 'networks (peak)'], rows).replace(/^/gm, '  '),
      );
    }
    if (report.networkIncidents.length > 0) {
      const rows = report.networkIncidents.map((incident) => {
        const listed = incident.networks
          .slice(0, 5)
          .map((n) => {
            const how = [n.failure, n.httpStatus === null ? null : `HTTP ${n.httpStatus}`].filter(
              (x) => x !== null,
            );
            return how.length === 0 ? n.network : `${n.network} (${how.join(', ')})`;
          })
          .join(', ');
        const more = incident.networks.length > 5 ? `, +${incident.networks.length - 5} more` : '';
        return [
          clip(printable(incident.id), 60),
          incident.kind === 'unreachable'
            ? 'unreachable'
            : clip(printable(`rule unreadable: ${incident.rule ?? '?'} (${incident.path ?? 'path ?'})`), 60),
          incident.acknowledged !== null
            ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged.by), 40)}`)
            : colour.red('OPEN'),
          since(incident.since, incident.forMs),
          clip(printable(`${incident.networks.length}: ${listed}${more}`), 120),
        ];
      });
      lines.push(
        renderTable(['incident', 'blind spot', 'state', 'since', 'networks'], rows).replace(/^/gm, '  '),
      );
    }
    if (perNetwork.length > 0) {
      const rows = perNetwork.map((incident) => [
        clip(printable(incident.rule), 40),
        clip(printable(incident.network), 40),
        `${
          incident.acknowledged !== null
            ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged.by), 40)}`)
            : colour.red('OPEN')
        }${incident.held ? ' (alert held)' : ''}`,
        since(incident.since, incident.forMs),
        incident.value === null
          ? '- (no readable value stored)'
          : `${String(incident.value)} at ${incident.valueAt ?? '?'}`,
      ]);
      lines.push(renderTable(['rule', 'network', 'state', 'since', 'last value'], rows).replace(/^/gm, '  '));
    }
  }

  return lines;
}
