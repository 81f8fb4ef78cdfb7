/**
 * Incident alerts and items as stored (docs/design/incidents.md): the story of an incident alert is JSON text,
 * so readings past DynamoDB's 1e125 survive the outbox and the event item; a damaged scope reads as empty.
 */
import { describe, expect, it } from 'vitest';
import { eventItem, fromStoredAlert, storedAlert } from '../../lambda/adapters/dynamo-items.ts';
import { decodeIncidentScope, incidentLayout } from '../../lambda/adapters/incident-items.ts';
import { EMPTY_INCIDENT_SCOPE } from '../../lambda/core/incidents/incidents.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

const AT = '2026-03-01T10:00:00.000Z';
const alert: AlertRecord = {
  seq: 3,
  event: 'incident.opened',
  at: AT,
  rule: 'flood',
  incident: `flood@${AT}`,
  openedAt: AT,
  severity: 'high',
  story: {
    kind: 'rule',
    openedAt: AT,
    members: [{ network: 'edge-1', value: 1e300, peak: 1e300, peakAt: AT, joinedAt: AT }],
    count: 1,
    total: 1,
    active: 1,
  },
};

describe('incident alerts and items as stored', () => {
  it('an incident alert keeps its story as JSON text in the outbox and the event item, and reads back', () => {
    const stored = storedAlert(alert);
    expect(typeof stored['story']).toBe('string');
    expect(JSON.stringify(stored)).not.toContain('"peak":1e+300,"peakAt"}'); // no number attribute
    expect(fromStoredAlert(stored)).toMatchObject({ story: alert.story, incident: alert.incident });
    expect(typeof eventItem(alert, 'incident#flood')['story']).toBe('string');
  });

  it.each([undefined, '', '{', '[]', '{"nextSeq":"x"}', 42])(
    'a damaged state (%j) reads as the empty scope',
    (stored) => {
      expect(decodeIncidentScope(stored)).toEqual(EMPTY_INCIDENT_SCOPE);
    },
  );

  it("the item's keys: incident#<rule>, its spilled alerts and events apart from every other scope's", () => {
    const layout = incidentLayout('flood');
    expect(layout.stateSort).toBe('incident#flood');
    expect(layout.spillSort(7)).toBe('incident#flood/000000000007');
    expect(layout.eventScope).toBe('incident#flood');
    const state = { ...EMPTY_INCIDENT_SCOPE, nextSeq: 9, shards: { '0': AT } };
    expect(layout.decode(layout.encode(state))).toEqual(state);
  });
});
