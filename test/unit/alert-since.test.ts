/**
 * The family times (issue 20.5): in memory a reminder's `statusSince`, a rule alert's `triggeredAt`, an incident
 * alert's `openedAt` and an announcement's `heldSince`; stored, the one attribute `since`, in its place.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { eventItem, fromStoredAlert, storedAlert } from '../../lambda/adapters/dynamo-items.ts';
import { ALERT_EVENT_TEXTS, ALERT_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import {
  fromStoredSince,
  SINCE_FIELDS,
  sinceField,
  sinceOf,
  toStoredSince,
} from '../../lambda/core/alerts/alert-since.ts';
import type {
  AlertRecord,
  ApiAlertRecord,
  IncidentAlertRecord,
  RuleAlertRecord,
  SilenceAlertRecord,
  StatusAlertRecord,
} from '../../lambda/core/types.ts';

const T = '2026-11-22T09:00:00.000Z';
const AT = '2026-11-22T10:00:00.000Z';

describe('each family names its own time (alert-since.ts)', () => {
  it('no two families share a name, and none is the stored attribute', () => {
    const names = Object.values(SINCE_FIELDS);
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain('since');
  });

  it('the record types carry only their own family time', () => {
    expectTypeOf<StatusAlertRecord>().toHaveProperty('statusSince');
    expectTypeOf<StatusAlertRecord>().not.toHaveProperty('triggeredAt');
    expectTypeOf<RuleAlertRecord>().toHaveProperty('triggeredAt');
    expectTypeOf<RuleAlertRecord>().not.toHaveProperty('statusSince');
    expectTypeOf<IncidentAlertRecord>().toHaveProperty('openedAt');
    expectTypeOf<SilenceAlertRecord>().toHaveProperty('heldSince');
    expectTypeOf<ApiAlertRecord>().not.toHaveProperty('heldSince');
    expectTypeOf<AlertRecord>().not.toHaveProperty('since');
  });

  it.each(ALERT_EVENTS)(
    '%s: its time, if its family has one, goes out as `since` and comes back under its name',
    (event) => {
      const field = sinceField(event);
      const family = ALERT_EVENT_TEXTS[event].family;
      expect(field).toBe((SINCE_FIELDS as Record<string, string>)[family]);
      const record = { seq: 1, event, at: AT, ...(field === undefined ? {} : { [field]: T }) } as AlertRecord;
      const stored = storedAlert(record);
      if (field === undefined) {
        expect(stored).not.toHaveProperty('since');
        return;
      }
      expect(stored['since']).toBe(T);
      expect(stored).not.toHaveProperty(field);
      expect(eventItem(record)['since']).toBe(T);
      expect(sinceOf(record)).toBe(T);
      const back = fromStoredAlert(stored);
      expect(back[field]).toBe(T);
      expect(back).not.toHaveProperty('since');
    },
  );

  it('an item stored before the split (a reminder, a rule resolve) reads back under the family name', () => {
    const reminder = fromStoredAlert({ seq: 6, event: 'filter.status_reminder', at: AT, to: 'x', since: T });
    expect(reminder).toEqual({ seq: 6, event: 'filter.status_reminder', at: AT, to: 'x', statusSince: T });
    const resolve = fromStoredAlert({ seq: 2, event: 'network.rule_resolved', at: AT, rule: 'r', since: T });
    expect(resolve['triggeredAt']).toBe(T);
    expect(resolve).not.toHaveProperty('statusSince');
  });

  it('a time of another family is not stored as `since`; a `since` this version has no name for is kept', () => {
    // A status change has no family time: a `triggeredAt` someone set on it is not its `since`.
    expect(toStoredSince({ event: 'filter.status_changed', at: AT, triggeredAt: T })).not.toHaveProperty(
      'since',
    );
    // An event this version does not know (a newer writer's), or a family without a time: rewritten (a claim)
    // as it was read, nothing lost.
    const newer = { seq: 3, event: 'future.kind', at: AT, since: T };
    expect(storedAlert(fromStoredAlert(newer) as unknown as AlertRecord)).toEqual(newer);
    expect(fromStoredSince({ event: 'api.unreachable', since: T })).toEqual({
      event: 'api.unreachable',
      since: T,
    });
  });

  it('the stored attribute keeps its place among the fields', () => {
    const stored = toStoredSince({
      seq: 1,
      event: 'network.rule_triggered',
      at: AT,
      triggeredAt: T,
      rule: 'r',
    });
    expect(Object.keys(stored)).toEqual(['seq', 'event', 'at', 'since', 'rule']);
    expect(Object.keys(fromStoredSince(stored))).toEqual(['seq', 'event', 'at', 'triggeredAt', 'rule']);
  });
});
