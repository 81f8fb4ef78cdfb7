/**
 * The hosted page's `feed.atom` (CONTRACT §19, docs/status-page.md "Feed"): the incidents opened and resolved in
 * the last 7 days as Atom 1.0 entries (RFC 4287), from the one listing (CONTRACT §15, "One view"). One entry per
 * event, not per incident: feed readers and chat feed apps (Slack's RSS app, Teams' RSS connector) post an entry
 * once, when they first see its id, and never post it again when it changes; an incident's opening and its
 * resolve are therefore two entries (`…:<incident>` and `…:<incident>:resolved`), each with an id that never
 * changes across publishes. Private: what the private page shows (kind, rule, networks count and worst,
 * acknowledgement). Public: what the public page shows (kind, time, count of networks) under the public id. Pure.
 */
import { formatDuration } from '../core/alerts/alert-text.ts';
import type { IncidentView } from '../core/incidents/incident-list.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import { peakDirection } from '../report/incidents.ts';
import { KIND_WORDS, PAGE_KEYS } from './pages.ts';
import { publicIncidentId } from './public-id.ts';
import type { PageMode } from './status-document.ts';

/** How far back the feed's entries go. */
export const FEED_WINDOW_MS = 7 * 86_400_000;

/** The feed's content type, as written to the bucket (the XML declaration names its encoding, UTF-8). */
export const FEED_CONTENT_TYPE = 'application/atom+xml';

/** What the feed is made of. */
export interface FeedInput {
  /** The one listing (every incident known since 7 days ago, and every open one). */
  readonly incidents: readonly IncidentView[];
  readonly mode: PageMode;
  /**
   * What names this page, stable across publishes (the publisher gives its bucket's name). Private: used as is
   * in the ids; public: only an HMAC of it under `publicIdKey` is shown.
   */
  readonly pageId: string;
  /** The key of the public ids (`public-id.ts`): needed by `public`. */
  readonly publicIdKey?: string;
  /** Private: the rules, for which way a network's peak is worst (highest for `>`, lowest for `<`). */
  readonly rules?: readonly Rule[];
  /** Now, epoch ms: entries of the 7 days before it. */
  readonly nowMs: number;
}

/** One entry, before it is written. */
export interface FeedEntry {
  /** `urn:shieldwatch:<page>:<incident>` for its opening, `…:resolved` for its resolve. */
  readonly id: string;
  readonly title: string;
  readonly summary: string;
  /** ISO-8601: when it happened. */
  readonly published: string;
  /** ISO-8601: `published`, or later when the private entry tells a later acknowledgement. */
  readonly updated: string;
}

/** The feed: its id, title, updated time and entries (newest first). */
export interface Feed {
  readonly id: string;
  readonly title: string;
  readonly updated: string;
  readonly entries: readonly FeedEntry[];
}

/**
 * Characters XML 1.0 cannot carry at all (controls but tab, line feed and return; lone surrogates; U+FFFE and
 * U+FFFF): replaced, so that a note or a rule with one still makes a well-formed feed.
 */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** XML's five predefined entities: every XML parser knows them. */
const XML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** `text` as XML character data or an attribute value. */
export function xmlText(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => XML_ENTITIES[c] as string);
}

const iso = (ms: number) => new Date(ms).toISOString();
const utc = (at: string) => {
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? `${iso(ms).slice(0, 19).replace('T', ' ')} UTC` : at;
};
const within = (at: string | undefined, fromMs: number, toMs: number) => {
  const ms = at === undefined ? Number.NaN : Date.parse(at);
  return Number.isFinite(ms) && ms >= fromMs && ms <= toMs;
};
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The page's part of every id: private its id as is, public an HMAC of it. */
function pageUrnPart(input: FeedInput): string {
  if (input.mode === 'private') return encodeURIComponent(input.pageId);
  if (input.publicIdKey === undefined) throw new Error('the public feed needs its public id key');
  return `page-${publicIncidentId(input.publicIdKey, `feed\u0000${input.pageId}`).slice(2)}`;
}

/** The worst network of `view` with its peak, or undefined when none has a peak. */
function worstNetwork(
  view: IncidentView,
  rules: readonly Rule[],
): { network: string; peak: number | boolean } | undefined {
  const op = rules.find((r) => r.name === view.rule)?.op;
  const direction = peakDirection(op);
  let worst: { network: string; peak: number | boolean } | undefined;
  for (const n of view.networks) {
    if (n.peak === undefined) continue;
    const beyond =
      worst === undefined ||
      (typeof n.peak === 'number' &&
        (typeof worst.peak !== 'number' ||
          (direction === 'max' ? n.peak > worst.peak : n.peak < worst.peak)));
    if (beyond) worst = { network: n.network, peak: n.peak };
  }
  return worst;
}

function networkCount(view: IncidentView): number {
  return Math.max(view.members.length, view.networks.length);
}

/** The private words about an incident: kind, rule, networks and the worst, acknowledgement. */
function privateLines(view: IncidentView, rules: readonly Rule[]): string[] {
  const count = networkCount(view);
  const worst = worstNetwork(view, rules);
  const ack = view.acknowledged;
  return [
    `${KIND_WORDS[view.kind] ?? 'Incident'}${view.rule === undefined ? '' : ` (rule ${view.rule})`}: ${view.about}.`,
    `Incident ${view.id}, opened ${utc(view.openedAt)}${view.resolvedAt === undefined ? '' : `, resolved ${utc(view.resolvedAt)}`}.`,
    ...(count === 0
      ? []
      : [
          `${plural(count, 'network')}${worst === undefined ? '' : `; worst ${worst.network}, peak ${String(worst.peak)}`}.`,
        ]),
    ...(ack === undefined
      ? []
      : [`Acknowledged by ${ack.by} at ${utc(ack.at)}${ack.note === undefined ? '' : `: "${ack.note}"`}.`]),
  ];
}

/** The public words: kind, times, how many networks; nothing else. */
function publicLines(view: IncidentView): string[] {
  const count = networkCount(view);
  return [
    `${KIND_WORDS[view.kind] ?? 'Incident'} since ${utc(view.openedAt)}${view.resolvedAt === undefined ? '' : `, resolved ${utc(view.resolvedAt)}`}${count > 1 ? ` (${count} networks)` : ''}.`,
  ];
}

/**
 * The feed of `input`: an entry for each incident opened in the 7 days before `nowMs`, and one for each resolved
 * in them, newest first. Its `updated` is the newest entry's (or now, with none).
 */
export function buildFeed(input: FeedInput): Feed {
  const page = pageUrnPart(input);
  const fromMs = input.nowMs - FEED_WINDOW_MS;
  const rules = input.rules ?? [];
  const entries: FeedEntry[] = [];
  for (const view of input.incidents) {
    const incident =
      input.mode === 'private'
        ? encodeURIComponent(view.id)
        : publicIncidentId(input.publicIdKey as string, view.id);
    const what = KIND_WORDS[view.kind] ?? 'Incident';
    const about = input.mode === 'private' && view.rule !== undefined ? ` ${view.rule}` : '';
    const count = networkCount(view);
    const networks = count > 1 ? ` (${count} networks)` : '';
    const summary = (input.mode === 'private' ? privateLines(view, rules) : publicLines(view)).join(' ');
    if (within(view.openedAt, fromMs, input.nowMs)) {
      const acked = input.mode === 'private' ? view.acknowledged?.at : undefined;
      const updated =
        acked !== undefined && Date.parse(acked) > Date.parse(view.openedAt) ? acked : view.openedAt;
      entries.push({
        id: `urn:shieldwatch:${page}:${incident}`,
        title: `Opened: ${what}${about}${networks}`,
        summary,
        published: new Date(view.openedAt).toISOString(),
        updated: new Date(updated).toISOString(),
      });
    }
    if (view.state === 'resolved' && within(view.resolvedAt, fromMs, input.nowMs)) {
      const lasted = Date.parse(view.resolvedAt as string) - Date.parse(view.openedAt);
      entries.push({
        id: `urn:shieldwatch:${page}:${incident}:resolved`,
        title: `Resolved: ${what}${about}${networks}${Number.isFinite(lasted) && lasted >= 0 ? `, after ${formatDuration(lasted)}` : ''}`,
        summary,
        published: new Date(view.resolvedAt as string).toISOString(),
        updated: new Date(view.resolvedAt as string).toISOString(),
      });
    }
  }
  entries.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : 1));
  return {
    id: `urn:shieldwatch:${page}`,
    title: input.mode === 'private' ? 'shieldwatch incidents' : 'Status: incidents',
    updated: entries.reduce((newest, e) => (e.updated > newest ? e.updated : newest), '') || iso(input.nowMs),
    entries,
  };
}

/**
 * The feed as Atom 1.0. With `baseUrl` (the page's address, public pages) the links are absolute, since a chat's
 * feed app shows an entry's link as it is; without it (a private page, whose links only work signed, or a page
 * whose address the publisher was not given) they are relative to the feed's own URL (RFC 4287 §4.2.7.1; the
 * base is the document's URI): `self` is `feed.atom`, `alternate` the page.
 */
export function renderFeed(feed: Feed, baseUrl?: string): string {
  const href = (key: string) => (baseUrl === undefined ? key : `${baseUrl}${key}`);
  const link = (rel: string, key: string, type: string) =>
    `<link rel="${rel}" href="${xmlText(href(key))}" type="${type}"/>`;
  const entries = feed.entries.map((e) =>
    [
      '  <entry>',
      `    <id>${xmlText(e.id)}</id>`,
      `    <title type="text">${xmlText(e.title)}</title>`,
      `    <published>${e.published}</published>`,
      `    <updated>${e.updated}</updated>`,
      `    ${link('alternate', PAGE_KEYS.index, 'text/html')}`,
      `    <summary type="text">${xmlText(e.summary)}</summary>`,
      '  </entry>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xmlText(feed.id)}</id>`,
    `  <title type="text">${xmlText(feed.title)}</title>`,
    `  <updated>${feed.updated}</updated>`,
    '  <author><name>shieldwatch</name></author>',
    `  ${link('self', PAGE_KEYS.feed, 'application/atom+xml')}`,
    `  ${link('alternate', PAGE_KEYS.index, 'text/html')}`,
    '  <generator>shieldwatch</generator>',
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}
