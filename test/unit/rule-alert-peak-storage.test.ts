/**
 * A rule resolve's peak as stored (lambda/adapters/dynamo-items.ts): in the alert's numbers' JSON text
 * (`ruleValues`) beside its value, so that any finite reading round-trips whatever DynamoDB numbers hold, in an
 * outbox entry and in an event item alike; a record stored before it was carried reads without it.
 */
import { describe, expect, it } from 'vitest';
import { eventItem, fromStoredAlert, storedAlert } from '../../lambda/adapters/dynamo-items.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

const AT = '2026-05-01T10:20:00.000Z';
const resolve = (fields: Partial<AlertRecord> = {}): AlertRecord =>
  ({
    seq: 4,
    event: 'network.rule_resolved',
    at: AT,
    rule: 'flood',
    network: 'edge-1',
    value: 1000,
    threshold: 500_000,
    ruleText: 'flood: traffic.in.pps > 500k',
    values: [1000],
    incident: 'flood/edge-1/2026-05-01T10:00:00.000Z',
    triggeredAt: '2026-05-01T10:00:00.000Z',
    ...fields,
  }) as AlertRecord;

describe('a rule resolve stored with its peak', () => {
  it.each([
    ['a number', 850_000],
    ['beyond DynamoDB numbers', 1e300],
    ['the longest double', -1.2345678901234567e-308],
    ['a boolean', true],
  ])('round-trips: %s', (_name, peak) => {
    // Prepare
    const alert = resolve({ peak, peakAt: '2026-05-01T10:10:00.000Z' });

    // Act
    const stored = storedAlert(alert);
    const back = fromStoredAlert(stored);
    const event = fromStoredAlert({ ruleValues: eventItem(alert, 'rules#0')['ruleValues'] });

    // Assess
    expect(stored).not.toHaveProperty('peak');
    expect(back).toEqual(alert);
    expect(event).toMatchObject({ peak, peakAt: '2026-05-01T10:10:00.000Z' });
  });

  it('a record stored before it was carried reads without a peak; the previous release reads a new one alike', () => {
    // Prepare: the numbers' text as the previous release wrote it (no peak).
    const old = { ...storedAlert(resolve()) };

    // Act
    const back = fromStoredAlert(old);
    const text = JSON.parse(String(storedAlert(resolve({ peak: 9, peakAt: AT }))['ruleValues']));

    // Assess
    expect(back).toEqual(resolve());
    expect(back).not.toHaveProperty('peak');
    // The previous release reads the keys it knows, as they were.
    expect(text).toMatchObject({ value: 1000, threshold: 500_000, values: [1000], peak: 9, peakAt: AT });
  });

  it('a damaged peak is left out, with its time', () => {
    const stored = storedAlert(resolve());
    const text = JSON.parse(String(stored['ruleValues']));
    const damaged = { ...stored, ruleValues: JSON.stringify({ ...text, peak: 'x', peakAt: AT }) };
    expect(fromStoredAlert(damaged)).not.toHaveProperty('peakAt');
    expect(fromStoredAlert(damaged)).not.toHaveProperty('peak');
  });
});
