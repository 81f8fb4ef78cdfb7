/**
 * `shieldwatch status`'s table of a rule's incidents on one network (`groupBy=none`; CONTRACT §15, one view):
 * an acknowledged one says who, as the JSON and `incidents` do (docs/acknowledge.md).
 */
import { describe, expect, it } from 'vitest';
import { palette } from '../../cli/format.ts';
import { renderIncidents } from '../../cli/status/render-incidents.ts';
import type { StatusReport } from '../../cli/status/report-types.ts';

const row = (
  acknowledged: StatusReport['ruleIncidents'][number]['acknowledged'],
): StatusReport['ruleIncidents'][number] => ({
  rule: 'flood',
  network: 'edge-1',
  since: '2026-05-01T10:00:00.000Z',
  forMs: 600_000,
  incident: 'flood/edge-1/2026-05-01T10:00:00.000Z',
  value: 900_000,
  valueAt: '2026-05-01T10:09:00.000Z',
  held: false,
  item: 'rules#0',
  state: acknowledged === null ? 'open' : 'acknowledged',
  acknowledgedAt: acknowledged?.at ?? null,
  acknowledged,
});

describe('status: a rule incident on one network', () => {
  it.each([
    ['open', null, 'OPEN'],
    [
      'acknowledged: by whom',
      { by: 'alice', at: '2026-05-01T10:05:00.000Z', note: 'on it' },
      'ACKNOWLEDGED by alice',
    ],
  ])('%s', (_name, acknowledged, state) => {
    // Prepare
    const report = {
      incidents: [],
      groupedIncidents: [],
      networkIncidents: [],
      ruleIncidents: [row(acknowledged)],
    } as unknown as StatusReport;

    // Act
    const text = renderIncidents(report, palette(false)).join('\n');

    // Assess
    const line = text.split('\n').find((l) => l.includes('edge-1'));
    expect(line).toContain(state);
    if (acknowledged === null) expect(line).not.toContain('ACKNOWLEDGED');
  });
});
