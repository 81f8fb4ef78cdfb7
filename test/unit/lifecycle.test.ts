import { describe, expect, it } from 'vitest';
import { FIRST_STAGE, type IncidentTimers } from '../../lambda/core/incidents/escalation.ts';
import {
  INCIDENT_KINDS,
  INCIDENT_OPENERS,
  parseIncidentId,
} from '../../lambda/core/incidents/incident-kinds.ts';
import {
  ACK_NOTE_MAX_CHARS,
  acknowledgeHeld,
  followIncidents,
  type HeldIncident,
  unacknowledgeHeld,
} from '../../lambda/core/incidents/lifecycle.ts';

/** A state holding one incident's timers, as every kind's hold does. */
interface Holder {
  readonly nextSeq: number;
  readonly timers: IncidentTimers;
  readonly lines: string[];
}

function hold(state: Holder): HeldIncident<Holder> {
  return {
    id: 'api.unreachable/2026-11-27T10:00:00.000Z',
    timers: state.timers,
    alert: (event, timers, at) => ({ event, at, incident: 'x', stage: timers.stage }),
    view: (timers) => ({ id: 'x', openedAt: timers.openedAt, networks: [], stage: timers.stage }),
    put: (timers, change) => ({
      ...state,
      timers,
      lines: [...state.lines, `${change.what} by ${change.by}`],
    }),
  };
}

const opened: Holder = {
  nextSeq: 7,
  timers: { openedAt: '2026-11-27T10:00:00.000Z', stage: FIRST_STAGE },
  lines: [],
};

describe('the one acknowledgement', () => {
  it('acknowledges once: the alert takes the next seq, ackRev is bumped, a second acknowledgement changes nothing', () => {
    const first = acknowledgeHeld(opened, hold(opened), {
      by: 'ana\u0007',
      at: '2026-11-27T10:05:00.000Z',
      note: 'x'.repeat(ACK_NOTE_MAX_CHARS + 20),
    });
    expect(first.outcome).toBe('acknowledged');
    if (first.outcome !== 'acknowledged') return;
    expect(first.state.nextSeq).toBe(8);
    expect(first.state.timers.ackRev).toBe(1);
    expect(first.state.timers.acknowledged?.by).toBe('ana');
    expect(first.state.timers.acknowledged?.note).toHaveLength(ACK_NOTE_MAX_CHARS);
    expect(first.alert).toMatchObject({ event: 'incident.acknowledged', seq: 7, acknowledgedBy: 'ana' });
    expect(first.state.lines).toEqual(['acknowledged by ana']);
    const again = acknowledgeHeld(first.state, hold(first.state), {
      by: 'bo',
      at: '2026-11-27T10:06:00.000Z',
    });
    expect(again.outcome).toBe('already');
  });

  it('withdraws only an acknowledgement there is, and refuses an incident not open', () => {
    expect(unacknowledgeHeld(hold(opened), 'bo', '2026-11-27T10:07:00.000Z').outcome).toBe(
      'not-acknowledged',
    );
    const acked = acknowledgeHeld(opened, hold(opened), { by: 'ana', at: '2026-11-27T10:05:00.000Z' });
    if (acked.outcome !== 'acknowledged') throw new Error(acked.outcome);
    const withdrawn = unacknowledgeHeld(hold(acked.state), 'bo', '2026-11-27T10:07:00.000Z');
    expect(withdrawn.outcome).toBe('unacknowledged');
    if (withdrawn.outcome !== 'unacknowledged') return;
    expect(withdrawn.state.timers.acknowledged).toBeUndefined();
    expect(withdrawn.state.timers.ackRev).toBe(2);
    expect(withdrawn.alert).toBeUndefined();
    expect(acknowledgeHeld(opened, undefined, { by: 'ana', at: 'x' }).outcome).toBe('not-open');
  });
});

describe('the one follow of open incidents', () => {
  const at = '2026-11-27T11:00:00.000Z';
  const incident = (id: string, timers: IncidentTimers, reminds = true) => ({
    id,
    timers,
    reminds,
    alert: (event: 'incident.reminder' | 'incident.escalated', t: IncidentTimers) =>
      `${id} ${event} ${t.stage}`,
  });
  const settings = { remindEveryMs: 30 * 60_000, escalateAfterMs: [10 * 60_000] };

  it('reminds then escalates each incident due, in the order given; an incident that does not remind only escalates', () => {
    const followed = followIncidents(
      [
        incident('a', { openedAt: '2026-11-27T10:00:00.000Z', stage: 1 }),
        incident('b', { openedAt: '2026-11-27T10:00:00.000Z', stage: 1 }, false),
      ],
      at,
      settings,
    );
    expect(followed.alerts).toEqual([
      'a incident.reminder 1',
      'a incident.escalated 2',
      'b incident.escalated 2',
    ]);
    expect(followed.timers['a']).toMatchObject({ stage: 2, lastRemindAt: at });
    expect(followed.timers['b']?.lastRemindAt).toBeUndefined();
  });

  it('keeps an incident whose follow-ups do not fit the room as it was, due again next cycle', () => {
    const a = { openedAt: '2026-11-27T10:00:00.000Z', stage: 1 };
    const followed = followIncidents([incident('a', a), incident('b', a)], at, settings, 3);
    expect(followed.alerts).toEqual(['a incident.reminder 1', 'a incident.escalated 2']);
    expect(followed.deferred).toBe(1);
    expect(followed.timers['b']).toBe(a);
  });

  it('pulls back times a clock ahead wrote, and an acknowledged incident neither reminds nor escalates', () => {
    const ahead = {
      openedAt: '2026-11-27T14:00:00.000Z',
      stage: 1,
      lastRemindAt: '2026-11-27T14:00:00.000Z',
    };
    const acked = {
      openedAt: '2026-11-27T09:00:00.000Z',
      stage: 1,
      acknowledged: { by: 'ana', at: '2026-11-27T09:01:00.000Z' },
    };
    const followed = followIncidents([incident('ahead', ahead), incident('acked', acked)], at, settings);
    expect(followed.alerts).toEqual([]);
    expect(followed.timers['ahead']).toMatchObject({ openedAt: at, lastRemindAt: at });
    expect(followed.timers['acked']).toEqual(acked);
  });
});

describe('the kinds registry', () => {
  it("names each opener among its kind's openers and its closer among its closers, and reads its ids", () => {
    for (const [opener, spec] of Object.entries(INCIDENT_OPENERS)) {
      expect(INCIDENT_KINDS[spec.kind].opens).toContain(opener);
      expect(INCIDENT_KINDS[spec.kind].closes).toContain(spec.closer);
      const id = spec.openedAt === 'id' ? `${opener}/2026-11-27T10:00:00.000Z` : undefined;
      if (id !== undefined) expect(parseIncidentId(id)?.kind).toBe(spec.kind);
    }
  });
});
