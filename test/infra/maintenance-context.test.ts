/**
 * The `maintenance` context key (issue 33, CONTRACT §17): windows checked at synth, every problem naming the
 * window; the valid ones reach the poller's environment as SHIELDWATCH_MAINTENANCE, read back by the function's
 * own loader; a synth without the key leaves the variable out, so a deploy without a window removes it.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/config.ts';
import { synthMonitor } from './synth.ts';

const WEEKLY = {
  start: '02:00',
  for: '2h',
  repeat: 'FREQ=WEEKLY;BYDAY=SU',
  tz: 'Europe/Berlin',
  event: '*',
  reason: 'weekly filter update',
  notify: true,
};
const MONTHLY = {
  start: '06:00',
  for: '4h',
  repeat: 'FREQ=MONTHLY;BYDAY=1SA',
  tz: 'Europe/Berlin',
  reason: 'firmware',
};

function pollerVariables(template: ReturnType<typeof synthMonitor>): Record<string, string> {
  const fns = Object.values(template.findResources('AWS::Lambda::Function')).filter(
    (fn) =>
      (fn['Properties'].Environment?.Variables as Record<string, string> | undefined)?.[
        'SHIELDWATCH_API_URL'
      ],
  );
  return fns[0]!['Properties'].Environment.Variables as Record<string, string>;
}

describe('the maintenance context key', () => {
  it.each([
    ['a cdk.json list', [WEEKLY, MONTHLY]],
    ['a -c JSON string', JSON.stringify([WEEKLY, MONTHLY])],
  ])('takes %s; the function reads the same windows from its environment', (_name, maintenance) => {
    // Act
    const template = synthMonitor({ networks: 'n1', maintenance });
    const variables = pollerVariables(template);

    // Assess
    const text = variables['SHIELDWATCH_MAINTENANCE'];
    expect(JSON.parse(text ?? '[]')).toEqual([WEEKLY, MONTHLY]);
    const config = loadConfig({
      SHIELDWATCH_API_URL: 'https://api.example.com',
      SHIELDWATCH_API_KEY: 'k'.repeat(20),
      SHIELDWATCH_MAINTENANCE: text ?? '',
    });
    expect(config.maintenance).toEqual([WEEKLY, MONTHLY]);
  });

  it('without the key (a redeploy that removed the windows) the variable is absent', () => {
    const template = synthMonitor({ networks: 'n1' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SHIELDWATCH_MAINTENANCE: Match.absent() }) },
    });
    expect(pollerVariables(template)['SHIELDWATCH_MAINTENANCE']).toBeUndefined();
  });

  it.each([
    [
      'an unknown zone',
      [{ ...WEEKLY, tz: 'Europe/Atlantis' }],
      /maintenance: window 1 \("weekly filter update"\): tz "Europe\/Atlantis" is no IANA time zone/,
    ],
    [
      'a rule that never occurs',
      [{ ...WEEKLY, repeat: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' }],
      /maintenance: window 1 .*repeat .* never occurs/,
    ],
    [
      'a rule more often than its duration',
      [MONTHLY, { ...WEEKLY, repeat: 'FREQ=HOURLY' }],
      /maintenance: window 2 \("weekly filter update"\): repeat "FREQ=HOURLY" occurs more often than for 2h/,
    ],
    [
      'an occurrence longer than 7 days',
      [{ ...WEEKLY, for: '8d' }],
      /maintenance: window 1 .*for 8d is longer than an occurrence may last/,
    ],
    [
      'a one-off more than 90 days ahead',
      [{ start: '2099-01-01T00:00Z', for: '1h', reason: 'far' }],
      /maintenance: window 1 \("far"\): start .* more than 90 days ahead/,
    ],
    [
      'a one-off without a date',
      [{ start: '02:00', for: '1h', reason: 'x' }],
      /maintenance: window 1 \("x"\): a one-off window .* needs a date/,
    ],
    [
      'a pattern that matches no event',
      [{ ...WEEKLY, event: 'nothing.*' }],
      /maintenance: window 1 .*event: the event pattern "nothing\.\*" matches no event/,
    ],
    ['an unknown field', [{ ...WEEKLY, every: 'week' }], /maintenance: window 1 .*unknown field\(s\) every/],
    ['not a list', { ...WEEKLY }, /maintenance: must be a JSON list/],
    ['no JSON', '[{"start": 02:00}]', /maintenance: is no JSON list/],
  ])('%s fails synth naming the window', (_name, maintenance, message) => {
    expect(() => synthMonitor({ networks: 'n1', maintenance })).toThrow(message);
  });
});
