/**
 * The hosted page's feed.atom (lambda/status-page/feed.ts, CONTRACT §19): parsed with a real XML parser, an entry
 * per opening and per resolve in the last 7 days, ids that never change across publishes, every text escaped,
 * and a public feed that shows only what the public page shows.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { IncidentView } from '../../lambda/core/incidents/incident-list.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import { buildFeed, FEED_WINDOW_MS, renderFeed, xmlText } from '../../lambda/status-page/feed.ts';
import { publicIncidentId } from '../../lambda/status-page/public-id.ts';

const NOW = Date.parse('2026-05-08T12:00:00.000Z');
const HOUR = 3_600_000;
const KEY = 'public-id-key-of-this-unit-test-0123456789abcdef';
const BUCKET = 'shieldwatch-prod-statuspagebucket-abc123';
const RULES = parseRules('quiet: traffic.in.pps < 10').rules;

const iso = (ms: number) => new Date(ms).toISOString();

function view(over: Partial<IncidentView> & Pick<IncidentView, 'id' | 'kind' | 'openedAt'>): IncidentView {
  return {
    state: 'open',
    networks: [],
    members: [],
    about: over.rule ?? over.kind,
    timeline: [],
    alerts: [],
    ...over,
  };
}

/** A rule whose name, networks and note carry XML's special characters and a control character. */
const FLOOD = view({
  id: `flood<&>@${iso(NOW - 2 * HOUR)}`,
  kind: 'rule',
  rule: 'flood<&>',
  openedAt: iso(NOW - 2 * HOUR),
  networks: [
    { network: 'net-"a"', peak: 600_000, peakAt: iso(NOW - HOUR) },
    { network: "net-<b>&'", peak: 900_000, peakAt: iso(NOW - HOUR) },
  ],
  members: [
    { network: 'net-"a"', joinedAt: iso(NOW - 2 * HOUR), peak: 600_000 },
    { network: "net-<b>&'", joinedAt: iso(NOW - 2 * HOUR), peak: 900_000 },
  ],
  state: 'acknowledged',
  acknowledged: { by: 'ops <ann>', at: iso(NOW - HOUR), note: 'upstream & "scrub" \u0007 <now>' },
});
/** Opened 9 days ago, resolved 3 days ago: only its resolve is in the week. */
const OLD_RESOLVED = view({
  id: `quiet@${iso(NOW - 9 * 24 * HOUR)}`,
  kind: 'rule',
  rule: 'quiet',
  openedAt: iso(NOW - 9 * 24 * HOUR),
  state: 'resolved',
  resolvedAt: iso(NOW - 3 * 24 * HOUR),
  networks: [
    { network: 'low-1', peak: 5 },
    { network: 'low-2', peak: 2 },
  ],
});
/** Opened and resolved in the week: two entries. */
const API = view({
  id: `api@${iso(NOW - 30 * HOUR)}`,
  kind: 'api',
  about: 'API unreachable',
  openedAt: iso(NOW - 30 * HOUR),
  state: 'resolved',
  resolvedAt: iso(NOW - 29 * HOUR),
});
/** Opened 8 days ago and still open: nothing in the week. */
const LONG_OPEN = view({
  id: `network@${iso(NOW - 8 * 24 * HOUR)}`,
  kind: 'network',
  openedAt: iso(NOW - 8 * 24 * HOUR),
  networks: [{ network: 'gone-9' }],
});
const ALL = [FLOOD, OLD_RESOLVED, API, LONG_OPEN];

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => name === 'entry' || name === 'link',
});

function parse(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as {
    feed: {
      '@xmlns': string;
      id: string;
      title: { '#text': string };
      updated: string;
      link: Array<{ '@rel': string; '@href': string }>;
      entry?: Array<{
        id: string;
        title: { '#text': string };
        summary: { '#text': string };
        updated: string;
        published: string;
        link: Array<{ '@rel': string; '@href': string }>;
      }>;
    };
  };
}

describe('feed.atom', () => {
  it('private: an entry per opening and per resolve in the last 7 days, newest first, as Atom 1.0', () => {
    // Act
    const xml = renderFeed(
      buildFeed({ incidents: ALL, mode: 'private', pageId: BUCKET, rules: RULES, nowMs: NOW }),
    );

    // Assess
    const { feed } = parse(xml);
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe(`urn:shieldwatch:${BUCKET}`);
    expect(feed.title['#text']).toBe('shieldwatch incidents');
    expect(feed.link).toEqual([
      { '@rel': 'self', '@href': 'feed.atom', '@type': 'application/atom+xml' },
      { '@rel': 'alternate', '@href': 'index.html', '@type': 'text/html' },
    ]);
    const entries = feed.entry ?? [];
    const urn = (id: string) => `urn:shieldwatch:${BUCKET}:${encodeURIComponent(id)}`;
    expect(entries.map((e) => e.id)).toEqual([
      urn(FLOOD.id),
      urn(API.id) + ':resolved',
      urn(API.id),
      urn(OLD_RESOLVED.id) + ':resolved',
    ]);
    expect(feed.updated).toBe(entries[0]!.updated);
    for (const e of entries) {
      expect(Date.parse(e.updated)).toBeGreaterThanOrEqual(NOW - FEED_WINDOW_MS);
      expect(e.published <= e.updated).toBe(true);
      expect(e.link[0]!['@href']).toBe('index.html');
    }
    const flood = entries[0]!;
    // Updated when acknowledged, published when opened.
    expect(flood.published).toBe(FLOOD.openedAt);
    expect(flood.updated).toBe(FLOOD.acknowledged!.at);
    // What the private page shows: kind, rule, networks count and the worst, acknowledgement (unescaped back).
    expect(flood.title['#text']).toBe('Opened: Traffic alert flood<&> (2 networks)');
    expect(flood.summary['#text']).toContain("2 networks; worst net-<b>&', peak 900000.");
    expect(flood.summary['#text']).toContain('Acknowledged by ops <ann>');
    expect(flood.summary['#text']).toContain('upstream & "scrub" \uFFFD <now>');
    // `<` rule: the lowest peak is the worst.
    expect(entries[3]!.summary['#text']).toContain('worst low-2, peak 2.');
    expect(entries[1]!.title['#text']).toBe('Resolved: Protection API unavailable, after 1h');
  });

  it('escapes every text: no raw markup, no character XML cannot carry', () => {
    expect(xmlText(`a<b>&"c"'d'\u0000\u001F\uFFFF\uD800x`)).toBe(
      'a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\uFFFD\uFFFD\uFFFD\uFFFDx',
    );
    expect(xmlText('😀 tab\tline\n')).toBe('😀 tab\tline\n');
    const xml = renderFeed(buildFeed({ incidents: [FLOOD], mode: 'private', pageId: 'a&b<c>', nowMs: NOW }));
    expect(xml).not.toContain('<ann>');
    expect(xml).not.toContain('\u0007');
    expect(parse(xml).feed.id).toBe('urn:shieldwatch:a%26b%3Cc%3E');
  });

  it.each(['private', 'public'] as const)('%s: ids never change across publishes', (mode) => {
    // Act: two publishes five minutes apart, the second after the API incident changed nothing.
    const at = (nowMs: number) =>
      parse(
        renderFeed(
          buildFeed({ incidents: ALL, mode, pageId: BUCKET, publicIdKey: KEY, rules: RULES, nowMs }),
        ),
      ).feed;
    const first = at(NOW);
    const second = at(NOW + 5 * 60_000);

    // Assess
    expect(second.id).toBe(first.id);
    expect((second.entry ?? []).map((e) => [e.id, e.published, e.updated])).toEqual(
      (first.entry ?? []).map((e) => [e.id, e.published, e.updated]),
    );
    expect(new Set((first.entry ?? []).map((e) => e.id)).size).toBe((first.entry ?? []).length);
  });

  it('public: only kind, times and count of networks, under public ids', () => {
    // Act
    const xml = renderFeed(
      buildFeed({
        incidents: ALL,
        mode: 'public',
        pageId: BUCKET,
        publicIdKey: KEY,
        rules: RULES,
        nowMs: NOW,
      }),
    );

    // Assess
    const { feed } = parse(xml);
    expect(feed.id).toMatch(/^urn:shieldwatch:page-[0-9a-f]{20}$/);
    const entries = feed.entry ?? [];
    expect(entries.map((e) => e.id)).toEqual([
      `${feed.id}:${publicIncidentId(KEY, FLOOD.id)}`,
      `${feed.id}:${publicIncidentId(KEY, API.id)}:resolved`,
      `${feed.id}:${publicIncidentId(KEY, API.id)}`,
      `${feed.id}:${publicIncidentId(KEY, OLD_RESOLVED.id)}:resolved`,
    ]);
    expect(entries[0]!.title['#text']).toBe('Opened: Traffic alert (2 networks)');
    expect(entries[0]!.updated).toBe(FLOOD.openedAt);
    for (const secret of [
      BUCKET,
      'flood',
      'quiet',
      'net-',
      'low-',
      '900000',
      '600000',
      'ops',
      'upstream',
      'scrub',
      'API unreachable',
      FLOOD.id,
      API.id,
      OLD_RESOLVED.id,
      encodeURIComponent(FLOOD.id),
      'acknowledged',
      'peak',
    ]) {
      expect(xml.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });

  it('public: refuses without the public id key', () => {
    expect(() => buildFeed({ incidents: ALL, mode: 'public', pageId: BUCKET, nowMs: NOW })).toThrow(
      /public id key/,
    );
  });

  it('with no incident in the week: a valid feed without entries, updated now', () => {
    const { feed } = parse(
      renderFeed(buildFeed({ incidents: [LONG_OPEN], mode: 'private', pageId: BUCKET, nowMs: NOW })),
    );
    expect(feed.entry).toBeUndefined();
    expect(feed.updated).toBe(iso(NOW));
  });
});
