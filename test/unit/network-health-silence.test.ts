/**
 * What a silence needs to know of a blind spot's alerts (docs/silences.md, Blind spots): which blind spot a
 * reminder or escalation tells of, how the announcement at a silence's end names a blind spot it held back, and
 * which of its triggers a silence remembers (an opening) and which not (a join).
 */
import { describe, expect, it } from 'vitest';
import { alertAction } from '../../lambda/core/alerts/alert-documents.ts';
import { healthHeldText } from '../../lambda/core/alerts/health-alert-text.ts';
import { blindSpotEventOf, type HealthState, judgeHealth } from '../../lambda/core/detect/network-health.ts';
import { heldKey } from '../../lambda/core/silences/silence.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

const UNREACHABLE = 'network.unreachable/0/2026-11-21T08:00:00.000Z';
const UNREADABLE = 'network.rule_unreadable/pps/3/2026-11-21T08:00:00.000Z';

describe('blindSpotEventOf', () => {
  it.each([
    ['incident.reminder', UNREACHABLE, 'network.unreachable'],
    ['incident.escalated', UNREACHABLE, 'network.unreachable'],
    ['incident.reminder', UNREADABLE, 'network.rule_unreadable'],
    ['incident.escalated', UNREADABLE, 'network.rule_unreadable'],
    // Someone's action: held only by its own name or `*`, as a rule incident's.
    ['incident.acknowledged', UNREACHABLE, undefined],
    // A rule's incident, the blind spot's own events, no id, a damaged id.
    ['incident.reminder', 'flood@2026-11-21T08:00:00.000Z', undefined],
    ['network.unreachable', UNREACHABLE, undefined],
    ['incident.reminder', undefined, undefined],
    ['incident.reminder', 'network.unreachable/x/2026', undefined],
  ] as const)('%s of %s tells of %s', (event, incident, expected) => {
    // Act
    const told = blindSpotEventOf({ event, ...(incident === undefined ? {} : { incident }) });

    // Assess
    expect(told).toBe(expected);
  });
});

describe('healthHeldText', () => {
  const announcement = (fields: Partial<AlertRecord>) =>
    ({ event: 'silence.still_holding', at: '2026-11-22T10:04:12.345Z', seq: 1, ...fields }) as AlertRecord;

  it.each([
    [{ heldEvent: 'network.unreachable' }, 80, 'network unreachable'],
    [{ heldEvent: 'network.rule_unreadable', rule: 'pps' }, 80, 'rule pps reads nothing'],
    [{ heldEvent: 'network.rule_unreadable' }, 80, 'rule ? reads nothing'],
    [
      { heldEvent: 'network.rule_unreadable', rule: 'r'.repeat(40) },
      30,
      `rule ${'r'.repeat(8)}... reads nothing`,
    ],
    [{ heldEvent: 'api.unreachable' }, 80, undefined],
  ] as const)('%o in %d characters: %s', (fields, room, expected) => {
    // Act
    const text = healthHeldText(announcement(fields as Partial<AlertRecord>), room);

    // Assess
    expect(text).toBe(expected);
  });
});

describe('a join is told from an opening (a silence holds a join back without remembering it)', () => {
  const cycle = (at: string, outcomes: Record<string, boolean>) => ({
    at,
    alertAfter: 1,
    shard: 0,
    rules: [],
    apiAnswered: true,
    networks: Object.entries(outcomes).map(([network, ok]) =>
      ok ? { network, ok } : { network, ok, errorKind: 'client' as const, httpStatus: 404 },
    ),
  });
  const run = (steps: ReadonlyArray<Record<string, boolean>>) => {
    let state: HealthState | undefined;
    const alerts: AlertRecord[][] = [];
    steps.forEach((outcomes, i) => {
      const judged = judgeHealth(state, cycle(`2026-11-22T10:0${i}:00.000Z`, outcomes));
      if (judged.stale) throw new Error('stale');
      state = judged.state;
      alerts.push([...judged.alerts]);
    });
    return alerts;
  };

  it.each([
    // a2 joins while a1 still fails.
    [
      'a join beside a failing network',
      [
        { a1: true, a2: true },
        { a1: false, a2: true },
        { a1: false, a2: false },
      ],
      ['a1'],
    ],
    // a1 recovers in the very cycle a2 crosses: the incident goes on, and the join lists no network left.
    [
      'a join as the last one recovers',
      [
        { a1: true, a2: true },
        { a1: false, a2: true },
        { a1: true, a2: false },
      ],
      [],
    ],
  ] as const)(
    '%s: the trigger lists `remaining`, and has no held key; the opening has one',
    (_, steps, remaining) => {
      // Act
      const alerts = run(steps);

      // Assess
      const [opening] = alerts[1]!;
      const join = alerts[2]!.find((a) => a.event === 'network.unreachable')!;
      expect(opening!.remaining).toBeUndefined();
      expect(join.incident).toBe(opening!.incident);
      expect(join.remaining).toEqual(remaining);
      expect(heldKey(opening!)).toBe(opening!.incident);
      expect(heldKey(join)).toBeUndefined();
      // Both trigger: PagerDuty adds to the same incident.
      expect([alertAction(opening!), alertAction(join)]).toEqual(['trigger', 'trigger']);
    },
  );
});
