import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALERT_EVENT_TEXTS, ALERT_EVENTS, RECOVERY_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import {
  ATTRIBUTE_MAX_CHARS,
  asciiFold,
  EMAIL_MAX_BYTES,
  formatDuration,
  type RenderContext,
  renderAlert,
  shorten,
} from '../../lambda/core/alerts/alert-text.ts';
import type { AlertEvent, AlertRecord, NetworkFigures } from '../../lambda/core/types.ts';

const AT = '2026-11-22T10:04:05.000Z';
const NO_NETWORKS: RenderContext = { networks: [] };
const PRINTABLE = /^[\x20-\x7E]*$/;

function change(from: string, to: string, extra: Partial<AlertRecord> = {}): AlertRecord {
  return { seq: 1, event: 'filter.status_changed', at: AT, from, to, ...extra };
}

function incident(event: AlertEvent, extra: Partial<AlertRecord> = {}): AlertRecord {
  return { seq: 2, event, at: AT, ...extra };
}

function network(networkId: string, figures: Array<[string, number]>, error?: string): NetworkFigures {
  return { networkId, at: AT, figures, ...(error === undefined ? {} : { error }) };
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

describe('asciiFold', () => {
  it.each([
    { input: 'active', output: 'active' },
    { input: 'Z\u00FCrich', output: 'Zurich' },
    { input: 'cafe\u0301', output: 'cafe' },
    { input: '\u201Cquoted\u201D \u2018single\u2019', output: '"quoted" \'single\'' },
    { input: '\u00ABguillemets\u00BB', output: '"guillemets"' },
    { input: 'a\u2013b\u2014c\u2212d', output: 'a-b-c-d' },
    { input: 'wait\u2026', output: 'wait...' },
    { input: 'no\u00A0break\u202Fthin', output: 'no break thin' },
    { input: 'Stra\u00DFe \u00C6r\u00F8 \u0141\u00F3d\u017A', output: 'Strasse AEro Lodz' },
    { input: '\uFB01le \u2460 \uFF26ull x\u00B2', output: 'file 1 Full x2' },
    { input: '\u8FD0\u884C', output: '??' },
    { input: 'ok \u{1F6E1}\uFE0F', output: 'ok ?' },
    { input: 'a\nb\tc\r\nd', output: 'a b c  d' },
    { input: 'line\u2028sep', output: 'line sep' },
    { input: 'bell\u0007 del\u007F nul\u0000', output: 'bell del nul' },
    { input: '\u200Bzero\u200Dwidth\uFEFF soft\u00ADhyphen', output: 'zerowidth softhyphen' },
    { input: 'lone \uD800 surrogate \uDC00', output: 'lone ? surrogate ?' },
    { input: '', output: '' },
  ])('folds $input to $output', ({ input, output }) => {
    // Act
    const folded = asciiFold(input);

    // Assess
    expect(folded).toBe(output);
    expect(folded).toMatch(PRINTABLE);
  });
});

describe('shorten', () => {
  it.each([
    { text: 'abcdef', max: 6, output: 'abcdef' },
    { text: 'abcdefg', max: 6, output: 'abc...' },
    { text: 'abcdefg', max: 3, output: '...' },
    { text: 'abcdefg', max: 2, output: '..' },
    { text: 'abcdefg', max: 0, output: '' },
    { text: 'abcdefg', max: -1, output: '' },
    { text: '', max: 5, output: '' },
    { text: 'ab\u{1F600}cdef', max: 6, output: 'ab...' },
    { text: 'ab\u{1F600}d', max: 5, output: 'ab\u{1F600}d' },
  ])('cuts $text to $max', ({ text, max, output }) => {
    // Act
    const short = shorten(text, max);

    // Assess
    expect(short).toBe(output);
    expect(short.length).toBeLessThanOrEqual(Math.max(0, max));
  });
});

describe('formatDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  it.each([
    { ms: 0, text: '0s' },
    { ms: 999, text: '0s' },
    { ms: 45 * s, text: '45s' },
    { ms: m, text: '1m' },
    { ms: 12 * m + 5 * s, text: '12m 5s' },
    { ms: 3 * h + 2 * m + 59 * s, text: '3h 2m' },
    { ms: 3 * h, text: '3h' },
    { ms: 2 * d + 4 * h + 30 * m, text: '2d 4h' },
    { ms: 400 * d, text: '400d' },
    { ms: -1, text: 'unknown' },
    { ms: Number.NaN, text: 'unknown' },
    { ms: Number.POSITIVE_INFINITY, text: 'unknown' },
  ])('formats $ms ms as $text', ({ ms, text }) => {
    // Act
    const formatted = formatDuration(ms);

    // Assess
    expect(formatted).toBe(text);
  });
});

describe('renderAlert subject and SMS', () => {
  it.each<{ alert: AlertRecord; subject: string; sms: string }>([
    {
      alert: change('active', 'mitigating'),
      subject: '[shieldwatch] Filter status changed: active -> mitigating',
      sms: 'shieldwatch: filter status is now "mitigating" (was "active"), seen 2026-11-22 10:04 UTC',
    },
    {
      alert: incident('api.auth_failed', { cycles: 1, detail: 'HTTP 401' }),
      subject: '[shieldwatch] API key rejected',
      sms: 'shieldwatch: the API key was rejected, seen 2026-11-22 10:04 UTC. HTTP 401',
    },
    {
      alert: incident('api.auth_restored'),
      subject: '[shieldwatch] API key accepted again',
      sms: 'shieldwatch: the API key is accepted again, seen 2026-11-22 10:04 UTC.',
    },
    {
      alert: incident('api.unreachable', { cycles: 3, detail: 'connect ECONNREFUSED' }),
      subject: '[shieldwatch] API unreachable',
      sms: 'shieldwatch: the API is unreachable (3 cycles in a row), seen 2026-11-22 10:04 UTC. connect ECONNREFUSED',
    },
    {
      alert: incident('api.recovered', { cycles: 1 }),
      subject: '[shieldwatch] API reachable again',
      sms: 'shieldwatch: the API is reachable again, seen 2026-11-22 10:04 UTC.',
    },
    {
      alert: incident('filter.status_unreadable', {
        cycles: 3,
        detail: 'status path "x" not found in the body',
      }),
      subject: '[shieldwatch] Filter status unreadable',
      sms: 'shieldwatch: the filter status cannot be read (3 cycles in a row), seen 2026-11-22 10:04 UTC. status path "x" not found in the body',
    },
    {
      alert: incident('filter.status_readable'),
      subject: '[shieldwatch] Filter status readable again',
      sms: 'shieldwatch: the filter status can be read again, seen 2026-11-22 10:04 UTC.',
    },
    {
      alert: incident('monitor.test'),
      subject: '[shieldwatch] TEST notification - delivery check',
      sms: 'shieldwatch: TEST notification, alert delivery works, seen 2026-11-22 10:04 UTC.',
    },
  ])('renders $alert.event', ({ alert, subject, sms }) => {
    // Act
    const rendered = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(rendered.subject).toBe(subject);
    expect(rendered.sms).toBe(sms);
  });

  it.each([
    { from: '', to: 'active', shown: '(empty) -> active' },
    { from: 'active', to: '', shown: 'active -> (empty)' },
    { from: '   ', to: 'on', shown: '(blank) -> on' },
    { from: '\u200B', to: 'on', shown: '<U+200B> -> on' },
    { from: 'Z\u00FCrich \u201Con\u201D', to: 'off', shown: 'Zurich "on" -> off' },
    { from: 'a\nb\tc', to: 'x\u0000y', shown: 'a<U+000A>b<U+0009>c -> x<U+0000>y' },
    { from: '\u8FD0\u884C', to: '\u{1F6E1}', shown: '?? -> ?' },
    { from: '0', to: 'true', shown: '0 -> true' },
  ])('shows statuses $from and $to as "$shown"', ({ from, to, shown }) => {
    // Act
    const { subject } = renderAlert(change(from, to), NO_NETWORKS);

    // Assess
    expect(subject).toBe(`[shieldwatch] Filter status changed: ${shown}`);
  });

  it('shortens two long statuses fairly and keeps the arrow', () => {
    // Prepare
    const alert = change('a'.repeat(500), 'b'.repeat(500));

    // Act
    const { subject } = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(subject).toHaveLength(99);
    const [from, to] = subject.replace('[shieldwatch] Filter status changed: ', '').split(' -> ');
    expect(from).toMatch(/^a+\.\.\.$/);
    expect(to).toMatch(/^b+\.\.\.$/);
    expect(Math.abs((from ?? '').length - (to ?? '').length)).toBeLessThanOrEqual(1);
  });

  it('gives a short new status all its room when only the old one is long', () => {
    // Prepare
    const alert = change('x'.repeat(300), 'mitigating');

    // Act
    const { subject, sms } = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(subject).toHaveLength(99);
    expect(subject.endsWith('... -> mitigating')).toBe(true);
    expect(sms.length).toBeLessThanOrEqual(160);
    expect(sms).toContain('is now "mitigating" (was "xxx');
  });

  it('fits long statuses in the SMS and still names the new one', () => {
    // Prepare
    const alert = change('\u00E9'.repeat(5000), `critical-${'z'.repeat(5000)}`);

    // Act
    const { sms } = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(sms.length).toBeLessThanOrEqual(160);
    expect(sms).toMatch(PRINTABLE);
    expect(sms).toContain('is now "critical-zzz');
    expect(sms).toContain('(was "eee');
    expect(sms.endsWith('seen 2026-11-22 10:04 UTC')).toBe(true);
  });

  it.each([
    { monitorName: 'prod edge', bracket: '[prod edge]', smsPrefix: 'prod edge:' },
    { monitorName: 'Z\u00FCrich \u2014 DC1', bracket: '[Zurich - DC1]', smsPrefix: 'Zurich - DC1:' },
    { monitorName: '  ', bracket: '[shieldwatch]', smsPrefix: 'shieldwatch:' },
    { monitorName: '\u200B', bracket: '[shieldwatch]', smsPrefix: 'shieldwatch:' },
    { monitorName: 'n'.repeat(200), bracket: `[${'n'.repeat(27)}...]`, smsPrefix: `${'n'.repeat(27)}...:` },
  ])('names the monitor $monitorName', ({ monitorName, bracket, smsPrefix }) => {
    // Act
    const rendered = renderAlert(change('a'.repeat(200), 'b'.repeat(200)), { networks: [], monitorName });

    // Assess
    expect(rendered.subject.startsWith(`${bracket} Filter status changed: `)).toBe(true);
    expect(rendered.subject).toContain(' -> ');
    expect(rendered.subject.length).toBeLessThanOrEqual(99);
    expect(rendered.sms.startsWith(`${smsPrefix} filter status is now "bbb`)).toBe(true);
  });

  it('says so when the time of the alert is not a valid time', () => {
    // Act
    const { sms, email } = renderAlert(change('a', 'b', { at: 'yesterday' }), NO_NETWORKS);

    // Assess
    expect(sms).toBe('shieldwatch: filter status is now "b" (was "a"), time unknown');
    expect(email).toContain('Seen:                   "yesterday" (not a valid time)');
  });

  it('folds and shortens a long, multi-line detail in the SMS', () => {
    // Prepare
    const alert = incident('api.unreachable', { cycles: 5, detail: `fetch failed\n${'\u00E8'.repeat(400)}` });

    // Act
    const { sms } = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(sms.length).toBeLessThanOrEqual(160);
    expect(sms).toMatch(PRINTABLE);
    expect(sms).toContain('(5 cycles in a row), seen 2026-11-22 10:04 UTC. fetch failed eee');
    expect(sms.endsWith('...')).toBe(true);
  });
});

describe('renderAlert email', () => {
  it('renders a status change with everything an operator needs', () => {
    // Prepare
    const alert = change('active', 'mitigating', {
      seq: 7,
      previousSince: '2026-11-22T07:02:00.000Z',
      cycles: 2,
    });
    const ctx: RenderContext = {
      networks: [
        network('net-1', [
          ['pps', 10],
          ['links.0.bps', 2.5],
        ]),
        network('net-2', [], 'HTTP 503'),
      ],
      apiUrl: 'https://api.example.com',
    };

    // Act
    const { email, default: text } = renderAlert(alert, ctx);

    // Assess
    expect(email).toBe(
      [
        'The filter status changed.',
        '',
        'New status:             "mitigating"',
        'Previous status:        "active"',
        'Seen:                   2026-11-22T10:04:05.000Z (Sun, 22 Nov 2026 10:04:05 UTC)',
        'Previous status lasted: 3h 2m (since 2026-11-22T07:02:00.000Z)',
        'Confirmed by:           2 cycles in a row',
        '',
        'Latest network figures:',
        '  net-1 (2026-11-22T10:04:05.000Z)',
        '    pps = 10',
        '    links.0.bps = 2.5',
        '  net-2 (2026-11-22T10:04:05.000Z)',
        '    error: HTTP 503',
        '',
        '--',
        'shieldwatch alert, event filter.status_changed',
        'API: https://api.example.com',
        'Alert number: 7',
      ].join('\n'),
    );
    expect(text).toBe(email);
  });

  it.each([
    { from: '', to: ' ', fromLine: '""', toLine: '" "' },
    { from: 'Z\u00FCrich \u{1F6E1}', to: 'a\nb', fromLine: '"Z\u00FCrich \u{1F6E1}"', toLine: '"a\\nb"' },
    { from: '\u0007', to: '"quoted"', fromLine: '"\\u0007"', toLine: '"\\"quoted\\""' },
    { from: '\uD800', to: '0', fromLine: '"\\ud800"', toLine: '"0"' },
  ])('quotes the exact statuses $from and $to', ({ from, to, fromLine, toLine }) => {
    // Act
    const { email } = renderAlert(change(from, to), NO_NETWORKS);

    // Assess
    expect(email).toContain(`New status:             ${toLine}\n`);
    expect(email).toContain(`Previous status:        ${fromLine}\n`);
  });

  it.each([
    { previousSince: '2026-11-20T06:00:00.000Z', lasted: '2d 4h (since 2026-11-20T06:00:00.000Z)' },
    { previousSince: '2026-11-22T10:03:20.000Z', lasted: '45s (since 2026-11-22T10:03:20.000Z)' },
    { previousSince: undefined, lasted: 'unknown' },
    { previousSince: 'not a time', lasted: 'unknown' },
    { previousSince: '2026-11-23T00:00:00.000Z', lasted: 'unknown (since 2026-11-23T00:00:00.000Z)' },
  ])('says the previous status lasted $lasted', ({ previousSince, lasted }) => {
    // Prepare
    const alert = change('a', 'b', previousSince === undefined ? {} : { previousSince });

    // Act
    const { email } = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(email).toContain(`Previous status lasted: ${lasted}\n`);
  });

  it.each([
    { cycles: undefined, shown: false },
    { cycles: 1, shown: false },
    { cycles: 3, shown: true },
  ])('mentions confirmations only when more than one ($cycles)', ({ cycles, shown }) => {
    // Act
    const { email } = renderAlert(change('a', 'b', cycles === undefined ? {} : { cycles }), NO_NETWORKS);

    // Assess
    expect(email.includes('Confirmed by:           3 cycles in a row')).toBe(shown);
  });

  it.each<AlertEvent>(['api.auth_failed', 'api.unreachable', 'filter.status_unreadable'])(
    'gives the detail and the cycles of the incident %s',
    (event) => {
      // Act
      const { email } = renderAlert(incident(event, { cycles: 4, detail: 'HTTP 503\nService Unavailable' }), {
        networks: [],
        monitorName: 'edge',
      });

      // Assess
      expect(email).toContain('Cycles in a row:        4\n');
      expect(email).toContain('Detail:                 HTTP 503 Service Unavailable\n');
      expect(email).toContain('Latest network figures: none');
      expect(email).toContain(`shieldwatch alert, event ${event}\nMonitor: edge`);
      expect(email).not.toContain('New status');
    },
  );

  it('explains a test notification', () => {
    // Act
    const { email } = renderAlert(incident('monitor.test'), NO_NETWORKS);

    // Assess
    expect(email.startsWith('This is a TEST notification')).toBe(true);
    expect(email).toContain('shieldwatch alert, event monitor.test');
  });

  it('caps networks at 50 and figures at 20, counting the rest', () => {
    // Prepare
    const figures = Array.from({ length: 25 }, (_, i): [string, number] => [`f${i}`, i]);
    const networks = Array.from({ length: 60 }, (_, i) => network(`net-${i}`, figures));

    // Act
    const { email } = renderAlert(change('a', 'b'), { networks });

    // Assess
    expect(email).toContain('  net-49 (');
    expect(email).not.toContain('  net-50 (');
    expect(email).toContain('  ... and 10 more networks\n');
    expect(email).toContain('    f19 = 19\n    ... and 5 more figures\n');
    expect(email).not.toContain('f20 = 20');
  });

  it('shows control characters in network ids, paths and errors as escapes', () => {
    // Prepare
    const networks = [network('net\n1', [['a\u0000b', 1]], 'bad\r\nthing\u0007'), network('', [])];

    // Act
    const { email } = renderAlert(change('a', 'b'), { networks });

    // Assess
    expect(email).toContain('  net 1 (');
    expect(email).toContain('    error: bad  thing<U+0007>\n');
    expect(email).toContain('    a<U+0000>b = 1\n');
    expect(email).toContain('  (no network id) (');
    expect(email).toContain('    (no figures)\n');
  });

  it('stays within its size budget and the SNS limit whatever the inputs', () => {
    // Prepare
    const huge = '\u8FD0"\\\u0000'.repeat(200_000);
    const figures = Array.from({ length: 30 }, (_, i): [string, number] => [`${huge.slice(0, 5000)}${i}`, i]);
    const networks = Array.from({ length: 80 }, (_, i) =>
      network(`${huge.slice(0, 3000)}${i}`, figures, huge),
    );
    const alert = change(huge, huge, { detail: huge, previousSince: huge });

    // Act
    const rendered = renderAlert(alert, { networks, monitorName: huge, apiUrl: huge });
    const message = JSON.stringify({ default: rendered.default, email: rendered.email, sms: rendered.sms });
    const attributeBytes = Object.entries(rendered.attributes).reduce(
      (total, [key, value]) => total + utf8Bytes(key) + utf8Bytes(value) + 'String'.length,
      0,
    );

    // Assess
    expect(utf8Bytes(rendered.email)).toBeLessThanOrEqual(EMAIL_MAX_BYTES);
    expect(utf8Bytes(message) + utf8Bytes(rendered.subject) + attributeBytes).toBeLessThan(256 * 1024);
    expect(rendered.email).toContain('(left out to keep the message within the SNS size limit)');
    expect(rendered.email).toContain('characters in all)');
  });
});

describe('renderAlert attributes', () => {
  it.each([
    { from: 'active', to: 'mitigating', attrs: { from: 'active', to: 'mitigating' } },
    { from: '', to: 'on', attrs: { from: '(empty)', to: 'on' } },
    {
      from: 'Z\u00FCrich \u{1F6E1}',
      to: ' tab\there ',
      attrs: { from: 'Z\u00FCrich \u{1F6E1}', to: ' tab\there ' },
    },
    { from: 'a\u0000b\u0007c', to: '\u0001', attrs: { from: 'abc', to: '(empty)' } },
    { from: 'x\uD800y\uDC00', to: 'p\uFFFEq\uFFFF', attrs: { from: 'xy', to: 'pq' } },
  ])('keeps $from and $to as exact as SNS allows', ({ from, to, attrs }) => {
    // Act
    const { attributes } = renderAlert(change(from, to), NO_NETWORKS);

    // Assess
    expect(attributes).toEqual({ event: 'filter.status_changed', ...attrs });
  });

  it('caps a long value at 1024 characters', () => {
    // Act
    const { attributes } = renderAlert(change('s'.repeat(5000), 'short'), NO_NETWORKS);

    // Assess
    expect(attributes['from']).toHaveLength(ATTRIBUTE_MAX_CHARS);
    expect(attributes['from']?.endsWith('...')).toBe(true);
    expect(attributes['to']).toBe('short');
  });

  it.each<[AlertEvent, Record<string, string>]>([
    // `stage`: every incident alert's escalation stage (docs/acknowledge.md), 1 until it escalates; `incident`:
    // the id of its `sqs` document (a record without one: its own event and time).
    ['api.auth_failed', { action: 'trigger', stage: '1', incident: `api.auth_failed/${AT}` }],
    ['api.auth_restored', { action: 'resolve', stage: '1', incident: `api.auth_restored/${AT}` }],
    ['api.unreachable', { action: 'trigger', stage: '1', incident: `api.unreachable/${AT}` }],
    ['api.recovered', { action: 'resolve', stage: '1', incident: `api.recovered/${AT}` }],
    [
      'filter.status_unreadable',
      { action: 'trigger', stage: '1', incident: `filter.status_unreadable/${AT}` },
    ],
    ['filter.status_readable', { action: 'resolve', stage: '1', incident: `filter.status_readable/${AT}` }],
    ['monitor.test', {}],
  ])('gives %s its event and the action on its incident, nothing else', (event, more) => {
    // Act
    const { attributes } = renderAlert(incident(event), NO_NETWORKS);

    // Assess
    expect(attributes).toEqual({ event, ...more });
  });
});

describe('renderAlert with an expected status', () => {
  const away: AlertRecord = {
    seq: 7,
    event: 'filter.status_changed',
    at: '2026-11-22T10:04:12.345Z',
    from: 'active',
    to: 'mitigating',
    previousSince: '2026-11-21T08:00:00.000Z',
    expected: 'active',
    severity: 'high',
  };

  it.each([
    {
      name: 'a change away from it is HIGH',
      alert: away,
      subject: '[shieldwatch] HIGH: Filter status changed: active -> mitigating',
      sms: 'shieldwatch: HIGH: filter status is now "mitigating" (was "active"), seen 2026-11-22 10:04 UTC',
      attributes: {
        event: 'filter.status_changed',
        from: 'active',
        to: 'mitigating',
        severity: 'high',
        action: 'trigger',
        stage: '1',
        incident: 'filter.status_changed/2026-11-22T10:04:12.345Z',
      },
    },
    {
      name: 'a change back to it says RESOLVED',
      alert: { ...away, from: 'mitigating', to: 'active', severity: 'resolved' as const },
      subject: '[shieldwatch] RESOLVED: Filter status changed: mitigating -> active',
      sms: 'shieldwatch: RESOLVED: filter status is now "active" (was "mitigating"), seen 2026-11-22 10:04 UTC',
      attributes: {
        event: 'filter.status_changed',
        from: 'mitigating',
        to: 'active',
        severity: 'resolved',
        action: 'resolve',
        stage: '1',
        // The change back names the change away it ends by when the status left (its previousSince).
        incident: 'filter.status_changed/2026-11-21T08:00:00.000Z',
      },
    },
    {
      name: 'a reminder names the status, the expected one and how long',
      alert: {
        seq: 8,
        event: 'filter.status_reminder' as const,
        at: '2026-11-22T12:34:12.345Z',
        to: 'mitigating',
        statusSince: '2026-11-22T10:04:12.345Z',
        expected: 'active',
        severity: 'high' as const,
      },
      subject: '[shieldwatch] REMINDER: filter status still mitigating, expected active',
      sms: 'shieldwatch: REMINDER filter status still "mitigating" (expected "active"), for 2h 30m, seen 2026-11-22 12:34 UTC',
      attributes: {
        event: 'filter.status_reminder',
        to: 'mitigating',
        severity: 'high',
        stage: '1',
        // The change it reminds of: the status's first sighting.
        incident: 'filter.status_changed/2026-11-22T10:04:12.345Z',
      },
    },
  ])('$name', ({ alert, subject, sms, attributes }) => {
    // Act
    const rendered = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(rendered.subject).toBe(subject);
    expect(rendered.sms).toBe(sms);
    expect(rendered.attributes).toEqual(attributes);
    expect(rendered.email).toContain('Severity:');
    expect(rendered.email).toContain('"active"');
  });

  it('fits a reminder with huge statuses into the subject and SMS limits', () => {
    // Act
    const rendered = renderAlert(
      {
        seq: 1,
        event: 'filter.status_reminder',
        at: '2026-11-22T12:00:00.000Z',
        to: 'x'.repeat(500),
        expected: 'é'.repeat(500),
        severity: 'high',
      },
      NO_NETWORKS,
    );

    // Assess
    expect(rendered.subject.length).toBeLessThanOrEqual(99);
    expect(rendered.subject).toMatch(
      /^\[shieldwatch\] REMINDER: filter status still x+\.\.\., expected e+\.\.\.$/,
    );
    expect(rendered.sms.length).toBeLessThanOrEqual(160);
  });
});

describe('renderAlert on malformed input', () => {
  it('renders an event it does not know', () => {
    // Act
    const rendered = renderAlert(incident('future.event' as AlertEvent), NO_NETWORKS);

    // Assess
    expect(rendered.subject).toBe('[shieldwatch] Alert: future.event');
    expect(rendered.sms).toBe('shieldwatch: alert future.event, seen 2026-11-22 10:04 UTC.');
    expect(rendered.email).toContain('Alert "future.event".');
    expect(rendered.attributes).toEqual({ event: 'future.event' });
  });

  it.each([
    { event: '', label: '(unnamed)' },
    { event: '\u200B\n', label: '(unnamed)' },
    { event: 'n\u00E9w.event', label: 'new.event' },
  ])('gives the unknown event "$event" a printable name', ({ event, label }) => {
    // Act
    const rendered = renderAlert(incident(event as AlertEvent), NO_NETWORKS);

    // Assess
    expect(rendered.subject).toBe(`[shieldwatch] Alert: ${label}`);
    expect(rendered.sms.startsWith(`shieldwatch: alert ${label}, seen`)).toBe(true);
  });

  it('copes with missing statuses and a context that is not what it should be', () => {
    // Prepare
    const alert = { seq: Number.NaN, event: 'filter.status_changed', at: 12 } as unknown as AlertRecord;
    const ctx = { networks: 'nope' } as unknown as RenderContext;

    // Act
    const rendered = renderAlert(alert, ctx);

    // Assess
    expect(rendered.subject).toBe('[shieldwatch] Filter status changed: (unknown) -> (unknown)');
    expect(rendered.email).toContain('New status:             unknown');
    expect(rendered.email).not.toContain('Alert number');
    expect(rendered.attributes).toEqual({ event: 'filter.status_changed' });
  });

  it('falls back to a minimal message when a field throws', () => {
    // Prepare
    const alert = {
      seq: 1,
      event: 'filter.status_changed',
      at: AT,
      get to(): string {
        throw new Error('boom');
      },
    } as AlertRecord;

    // Act
    const rendered = renderAlert(alert, NO_NETWORKS);

    // Assess
    expect(rendered.subject).toBe('[shieldwatch] Alert: filter.status_changed');
    expect(rendered.sms).toMatch(PRINTABLE);
    expect(rendered.default).toBe(rendered.email);
    expect(rendered.attributes).toEqual({ event: 'filter.status_changed' });
  });
});

describe('renderAlert: recoveries speak of the incident that ended', () => {
  it.each([
    {
      event: 'api.recovered' as const,
      sms: /the API is reachable again \(after 4 failing cycles\), seen .*\. Last error was: timed out after 5000 ms$/,
    },
    {
      event: 'api.unreachable' as const,
      sms: /the API is unreachable \(4 cycles in a row\), seen .*\. timed out after 5000 ms$/,
    },
  ])('$event', ({ event, sms }) => {
    // Act
    const rendered = renderAlert(
      incident(event, { cycles: 4, detail: 'timed out after 5000 ms' }),
      NO_NETWORKS,
    );

    // Assess
    expect(rendered.sms).toMatch(sms);
    expect(rendered.sms.length).toBeLessThanOrEqual(160);
  });
});

describe('renderAlert: hidden and look-alike characters in statuses (issue 15.8)', () => {
  const LOOK_ALIKE = 'differ only in invisible or look-alike characters';
  const SEEN = 'seen 2026-11-22 10:04 UTC';

  it.each([
    { name: 'a zero-width space', from: 'ON', to: 'ON\u200B', shown: 'ON -> ON<U+200B>', note: false },
    {
      name: 'a right-to-left override',
      from: 'active',
      to: '\u202Eactive',
      shown: 'active -> <U+202E>active',
      note: false,
    },
    {
      name: 'bidi isolates',
      from: 'on',
      to: '\u2066on\u2069',
      shown: 'on -> <U+2066>on<U+2069>',
      note: false,
    },
    { name: 'a no-break space', from: 'O N', to: 'O\u00A0N', shown: 'O N -> O<U+00A0>N', note: false },
    { name: 'an ideographic space', from: 'O N', to: 'O\u3000N', shown: 'O N -> O<U+3000>N', note: false },
    { name: 'a soft hyphen', from: 'ON', to: 'O\u00ADN', shown: 'ON -> O<U+00AD>N', note: false },
    { name: 'a BOM', from: 'ON', to: '\uFEFFON', shown: 'ON -> <U+FEFF>ON', note: false },
    {
      name: 'a trailing space',
      from: 'Active',
      to: 'Active ',
      shown: 'Active -> Active<U+0020>',
      note: false,
    },
    {
      name: 'fullwidth letters',
      from: 'ON',
      to: '\uFF2F\uFF2E',
      shown: 'ON -> <U+FF2F><U+FF2E>',
      note: true,
    },
    { name: 'a combining accent', from: 'cafe', to: 'cafe\u0301', shown: 'cafe -> cafe<U+0301>', note: true },
    { name: 'a variation selector', from: 'ok', to: 'ok\uFE0F', shown: 'ok -> ok<U+FE0F>', note: true },
    {
      name: 'two scripts that both fold to ?',
      from: '\u8FD0\u884C',
      to: '\u505C\u6B62',
      shown: '<U+8FD0><U+884C> -> <U+505C><U+6B62>',
      note: true,
    },
    { name: 'Cyrillic O against Latin O', from: 'ON', to: '\u041EN', shown: 'ON -> ?N', note: false },
  ])('tells statuses apart that differ by $name', ({ from, to, shown, note }) => {
    // Act
    const { subject, sms } = renderAlert(change(from, to), NO_NETWORKS);

    // Assess
    const [shownFrom, shownTo] = shown.split(' -> ');
    expect(subject).toBe(`[shieldwatch] Filter status changed${note ? ' (look-alike)' : ''}: ${shown}`);
    expect(sms).toBe(
      `shieldwatch: filter status is now "${shownTo}" (was "${shownFrom}"${note ? `; ${LOOK_ALIKE}` : ''}), ${SEEN}`,
    );
  });

  it('tells a reminder status apart from an expected status that only looks the same', () => {
    // Act
    const { subject, sms, email } = renderAlert(
      {
        seq: 3,
        event: 'filter.status_reminder',
        at: AT,
        statusSince: '2026-11-22T08:04:05.000Z',
        to: 'Active',
        expected: '\uFF21ctive',
        severity: 'high',
      },
      NO_NETWORKS,
    );

    // Assess
    expect(subject).toBe(
      '[shieldwatch] REMINDER: filter status still Active, expected <U+FF21>ctive (look-alike)',
    );
    expect(sms).toBe(
      `shieldwatch: REMINDER filter status still "Active" (expected "<U+FF21>ctive"; ${LOOK_ALIKE}), ${SEEN}`,
    );
    expect(email).toContain(`Note:                   the two statuses ${LOOK_ALIKE}:\n`);
    expect(email).toContain('Expected, escaped:      <U+FF21>ctive\n');
  });

  it('keeps two long look-alike statuses apart where they differ, past the room of the subject', () => {
    // Prepare
    const from = `${'\u00E9'.repeat(60)}\u200B`;
    const to = `${'\u00E9'.repeat(60)}\u200C`;

    // Act
    const { subject, sms } = renderAlert(change(from, to), NO_NETWORKS);

    // Assess
    expect(subject.length).toBeLessThanOrEqual(99);
    expect(sms.length).toBeLessThanOrEqual(160);
    expect(subject).toContain('<U+200B>');
    expect(subject).toContain('<U+200C>');
    expect(sms).toContain('<U+200B>');
    expect(sms).toContain('<U+200C>');
  });

  it('escapes hidden characters from the API in the email, and shows non-ASCII statuses escaped too', () => {
    // Prepare
    const alert = change('\u041EN', 'ON\u202E', { detail: 'bad\u202Eanswer\u2066x\u2069' });
    const networks = [network('net\u200B1', [['pps\u2028in', 1]], 'refused\u202E')];

    // Act
    const { email, default: defaultText, attributes } = renderAlert(alert, { networks });

    // Assess
    for (const text of [email, defaultText]) {
      expect(text).not.toMatch(/[\p{Cf}\u2028\u2029]/u);
      expect(text).toContain('New status:             "ON<U+202E>"\n');
      expect(text).toContain('Previous status:        "\u041EN"\n');
      expect(text).toContain('Previous, escaped:      <U+041E>N\n');
      expect(text).toContain('New, escaped:           ON<U+202E>\n');
      expect(text).toContain('Detail:                 bad<U+202E>answer<U+2066>x<U+2069>\n');
      expect(text).toContain('  net<U+200B>1 (');
      expect(text).toContain('    error: refused<U+202E>\n');
      expect(text).toContain('    pps<U+2028>in = 1\n');
    }
    expect(attributes).toEqual({ event: 'filter.status_changed', from: '\u041EN', to: 'ON\u202E' });
  });

  it.each<AlertEvent>(['api.unreachable', 'api.recovered', 'filter.status_unreadable'])(
    'escapes a format character in the detail of %s, in the SMS too',
    (event) => {
      // Act
      const { sms, email } = renderAlert(incident(event, { detail: 'HTTP 500 \u202Edetail' }), NO_NETWORKS);

      // Assess
      expect(sms).toContain('HTTP 500 <U+202E>detail');
      expect(email).toContain('HTTP 500 <U+202E>detail');
    },
  );
});

describe('the alert events', () => {
  it('are the event table of docs/alerts.md, each with its texts', () => {
    // Prepare
    const page = readFileSync(new URL('../../docs/alerts.md', import.meta.url), 'utf8');
    const table = page.split('## Event names')[1]?.split('\n\n')[1] ?? '';

    // Act
    const documented = [...table.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((match) => match[1]);

    // Assess
    expect([...documented].sort()).toEqual([...ALERT_EVENTS].sort());
    for (const event of ALERT_EVENTS) {
      const texts = ALERT_EVENT_TEXTS[event];
      expect([texts.subject, texts.sms, texts.intro].every((text) => text.trim() !== '')).toBe(true);
    }
  });

  it('end an incident exactly for the recovery events', () => {
    // Assess
    expect([...RECOVERY_EVENTS].sort()).toEqual([
      'api.auth_restored',
      'api.recovered',
      'filter.status_readable',
    ]);
  });
});
