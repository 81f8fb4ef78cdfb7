import { describe, expect, it } from 'vitest';
import { replayIncidents } from '../../lambda/core/incidents/incident-replay.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();
const t = (
  minute: number,
  event: 'network.rule_triggered' | 'network.rule_resolved',
  network: string,
  value: number,
) => ({
  at: at(minute),
  event,
  rule: 'flood',
  network,
  value,
});

describe('replayIncidents (backtest)', () => {
  it('per-network transitions form one incident per attack: opened, updated after the interval, resolved', () => {
    const replayed = replayIncidents(
      [
        t(0, 'network.rule_triggered', 'a', 600_000),
        t(1, 'network.rule_triggered', 'b', 700_000),
        t(7, 'network.rule_resolved', 'a', 1),
        t(8, 'network.rule_resolved', 'b', 1),
        t(30, 'network.rule_triggered', 'a', 900_000),
      ],
      [{ name: 'flood' }],
      5 * 60_000,
    );
    expect(replayed.alerts.map((a) => `${a.at.slice(11, 16)} ${a.event}`)).toEqual([
      '10:00 incident.opened',
      '10:07 incident.updated',
      '10:08 incident.resolved',
      '10:30 incident.opened',
    ]);
    expect(replayed.incidents.map((i) => [i.state, i.networks.length])).toEqual([
      ['resolved', 2],
      ['open', 1],
    ]);
  });
});
