/** judgeExpectedStatus: the expected status against the status now and the statuses seen before (issue 32.2). */
import { describe, expect, it } from 'vitest';
import { judgeExpectedStatus } from '../../lambda/core/detect/expected-status.ts';

describe('judgeExpectedStatus', () => {
  it.each([
    // expected, now, seen before, verdict
    ['active', 'active', [], { kind: 'now' }],
    ['active', undefined, ['mitigating', 'active'], { kind: 'seen', now: undefined }],
    ['maintenance', 'active', ['active', 'maintenance'], { kind: 'seen', now: 'active' }],
    ['Active', 'active', [], { kind: 'differs', status: 'active', how: 'case', now: true }],
    ['ACTIVE', 'active', ['active'], { kind: 'differs', status: 'active', how: 'case', now: true }],
    [' active', 'active', [], { kind: 'differs', status: 'active', how: 'spaces', now: true }],
    ['in service', 'inservice', [], { kind: 'differs', status: 'inservice', how: 'spaces', now: true }],
    [
      'In Service ',
      'in service',
      [],
      { kind: 'differs', status: 'in service', how: 'case and spaces', now: true },
    ],
    ['active', 'active ', [], { kind: 'differs', status: 'active ', how: 'spaces', now: true }],
    ['actve', 'active', [], { kind: 'differs', status: 'active', how: 'near', now: true }],
    [
      'Maintenance',
      'active',
      ['maintenance'],
      { kind: 'differs', status: 'maintenance', how: 'case', now: false },
    ],
    [
      'mitigatng',
      undefined,
      ['mitigating'],
      { kind: 'differs', status: 'mitigating', how: 'near', now: false },
    ],
    ['enabled', 'active', ['active', 'mitigating'], { kind: 'never', now: 'active' }],
    ['enabled', undefined, [], { kind: 'never', now: undefined }],
    // Too short to call a typo: "up" is not "on".
    ['up', 'on', [], { kind: 'never', now: 'on' }],
  ] as const)('expected %j, now %j, seen %j', (expected, now, seen, verdict) => {
    expect(judgeExpectedStatus(expected, now, seen)).toEqual(verdict);
  });

  it('an exact match anywhere wins over a near miss of the status now', () => {
    // "Active" was reported before exactly: the operator may mean it; it is away now, not a typo.
    expect(judgeExpectedStatus('Active', 'active', ['Active'])).toEqual({ kind: 'seen', now: 'active' });
  });

  it('the status now is preferred when several statuses seen are near', () => {
    expect(judgeExpectedStatus('ACTIVE', 'active', ['Active'])).toEqual({
      kind: 'differs',
      status: 'active',
      how: 'case',
      now: true,
    });
  });
});
