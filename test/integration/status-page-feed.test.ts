/**
 * The hosted page's feed.atom (CONTRACT §19, docs/status-page.md "Feed") as the publisher writes it, against
 * real parts on loopback: the table in dynalite filled by real poll cycles (test/fixtures/incident-scene.ts), the
 * bucket in moto_server's S3. The object is parsed with a real XML parser: Atom's structure, an entry for each
 * incident of the listing opened or resolved in the last 7 days, ids kept across publishes, and a public feed
 * with only what the public page shows.
 */
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReportAssets } from '../../lambda/report/build.ts';
import { FEED_WINDOW_MS } from '../../lambda/status-page/feed.ts';
import { PAGE_KEYS } from '../../lambda/status-page/pages.ts';
import { publicIncidentId } from '../../lambda/status-page/public-id.ts';
import {
  PAGE_CACHE_CONTROL,
  type PublishRequest,
  publishStatusPage,
} from '../../lambda/status-page/publish.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { playIncidentScene, SCENE, SCENE_RULES, type Scene } from '../fixtures/incident-scene.ts';
import { type MotoServer, startMoto } from '../fixtures/moto-server.ts';

const ID_KEY = 'public-id-key-of-the-feed-test-stack-0123456789abcdef';

interface AtomEntry {
  id: string;
  title: { '#text': string; '@type': string };
  summary: { '#text': string };
  updated: string;
  published: string;
  link: Array<{ '@rel': string; '@href': string }>;
}
interface AtomFeed {
  '@xmlns': string;
  id: string;
  title: { '#text': string };
  updated: string;
  author: { name: string };
  link: Array<{ '@rel': string; '@href': string; '@type': string }>;
  entry?: AtomEntry[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => name === 'entry' || name === 'link',
});

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('feed.atom, written by the publisher to S3 on loopback', () => {
  let moto: MotoServer;
  let dynamo: LocalDynamo;
  let s3: S3Client;
  let scene: Scene;

  beforeAll(async () => {
    moto = await startMoto();
    dynamo = await startDynamo();
    s3 = new S3Client({
      endpoint: moto.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    // Prepare: the scene, by real cycles.
    scene = await playIncidentScene(dynamo);
  }, 60_000);

  afterAll(async () => {
    await dynamo?.close();
    s3?.destroy();
    await moto?.stop();
  });

  async function publish(bucket: string, over: Partial<PublishRequest> = {}) {
    return publishStatusPage(dynamo.client, s3, {
      table: dynamo.table,
      bucket,
      mode: 'private',
      networks: [SCENE.attacked],
      assets: readReportAssets(),
      everySeconds: 300,
      nowMs: scene.nowMs,
      rules: SCENE_RULES,
      ...over,
    });
  }

  async function readFeed(bucket: string) {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: PAGE_KEYS.feed }));
    const text = await out.Body!.transformToString();
    expect(XMLValidator.validate(text)).toBe(true);
    const feed = (parser.parse(text) as { feed: AtomFeed }).feed;
    return { text, feed, type: out.ContentType, cache: out.CacheControl };
  }

  /** The listing's events of the week, computed apart from the feed: `[incident id, 'opened' | 'resolved']`. */
  function weekEvents(nowMs: number): Array<[string, 'opened' | 'resolved']> {
    const inWeek = (at: string | undefined) =>
      at !== undefined && Date.parse(at) >= nowMs - FEED_WINDOW_MS && Date.parse(at) <= nowMs;
    return scene.listing.flatMap(
      (v): Array<[string, 'opened' | 'resolved']> => [
        ...(inWeek(v.openedAt) ? [[v.id, 'opened'] as [string, 'opened']] : []),
        ...(v.state === 'resolved' && inWeek(v.resolvedAt)
          ? [[v.id, 'resolved'] as [string, 'resolved']]
          : []),
      ],
    );
  }

  /** The feed is Atom with its links to itself and the page, under `base` (empty: relative). */
  function checkAtom(feed: AtomFeed, base = '') {
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toMatch(/^urn:shieldwatch:/);
    expect(feed.title['#text']).not.toBe('');
    expect(feed.updated).toMatch(RFC3339);
    expect(feed.author.name).toBe('shieldwatch');
    expect(feed.link.find((l) => l['@rel'] === 'self')).toMatchObject({
      '@href': `${base}${PAGE_KEYS.feed}`,
      '@type': 'application/atom+xml',
    });
    expect(feed.link.find((l) => l['@rel'] === 'alternate')).toMatchObject({
      '@href': `${base}${PAGE_KEYS.index}`,
    });
    for (const entry of feed.entry ?? []) {
      expect(entry.id).toMatch(/^urn:shieldwatch:/);
      expect(entry.title['#text']).toMatch(/^(Opened|Resolved): /);
      expect(entry.updated).toMatch(RFC3339);
      expect(entry.published).toMatch(RFC3339);
      expect(entry.link[0]).toMatchObject({ '@rel': 'alternate', '@href': `${base}${PAGE_KEYS.index}` });
      expect(entry.summary['#text']).not.toBe('');
    }
  }

  it('private: Atom next to status.json, an entry per incident opened or resolved in the week of the listing', async () => {
    // Prepare
    const bucket = 'feed-private';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));

    // Act
    const result = await publish(bucket);
    const { feed, type, cache } = await readFeed(bucket);

    // Assess
    expect(result.written.map((w) => w.key)).toContain(PAGE_KEYS.feed);
    expect(type).toBe('application/atom+xml');
    expect(cache).toBe(PAGE_CACHE_CONTROL);
    checkAtom(feed);
    const expected = weekEvents(scene.nowMs).map(([id, what]) =>
      what === 'opened'
        ? `${feed.id}:${encodeURIComponent(id)}`
        : `${feed.id}:${encodeURIComponent(id)}:resolved`,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect((feed.entry ?? []).map((e) => e.id).sort()).toEqual(expected.sort());
    // The attack opened 8 days ago and still open is not in the week; the blind spot is, with its network.
    expect(feed.entry!.some((e) => e.id.includes(encodeURIComponent(scene.attackId)))).toBe(false);
    const blind = feed.entry!.find((e) => e.id === `${feed.id}:${encodeURIComponent(scene.blindSpotId)}`);
    expect(blind?.title['#text']).toBe('Opened: Network unreachable');
    expect(blind?.summary['#text']).toContain('1 network');
    const view = scene.listing.find((v) => v.id === scene.blindSpotId)!;
    expect(blind?.published).toBe(new Date(view.openedAt).toISOString());
  }, 60_000);

  it('public: the same entries under public ids, with only what the public page shows; ids kept at the next publish', async () => {
    // Prepare
    const bucket = 'feed-public';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));

    // Act
    await publish(bucket, { mode: 'public', publicIdKey: ID_KEY });
    const first = await readFeed(bucket);
    await publish(bucket, { mode: 'public', publicIdKey: ID_KEY, nowMs: scene.nowMs + 300_000 });
    const second = await readFeed(bucket);

    // Assess
    checkAtom(first.feed);
    const expected = weekEvents(scene.nowMs).map(
      ([id, what]) =>
        `${first.feed.id}:${publicIncidentId(ID_KEY, id)}${what === 'resolved' ? ':resolved' : ''}`,
    );
    expect((first.feed.entry ?? []).map((e) => e.id).sort()).toEqual(expected.sort());
    expect(second.feed.id).toBe(first.feed.id);
    expect((second.feed.entry ?? []).map((e) => e.id)).toEqual((first.feed.entry ?? []).map((e) => e.id));
    for (const secret of [
      bucket,
      SCENE.attacked,
      SCENE.unreachable,
      SCENE.calm,
      SCENE.rule,
      String(SCENE.peak),
      SCENE.ack.note,
      SCENE.silence.reason,
      SCENE.silence.id,
      ...scene.listing.map((v) => v.id),
      ...scene.listing.map((v) => encodeURIComponent(v.id)),
    ]) {
      expect(first.text).not.toContain(secret);
    }
    expect(first.text).not.toMatch(/\bpps\b|peak|acknowledged|worst/i);
    // Without the page's address the links are relative to the feed.
    expect(first.text).toContain('<link rel="self" href="feed.atom"');
  }, 60_000);

  it("public with the page's address: every link absolute, so a chat's feed app links to the page", async () => {
    // Prepare
    const bucket = 'feed-public-url';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const url = 'https://d111111abcdef8.cloudfront.net/';

    // Act
    await publish(bucket, { mode: 'public', publicIdKey: ID_KEY, url });
    const { text, feed } = await readFeed(bucket);
    await publish(bucket, { mode: 'private', url });
    const privateFeed = await readFeed(bucket);

    // Assess
    checkAtom(feed, url);
    const hrefs = [...text.matchAll(/<link [^>]*href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.length).toBe(2 + (feed.entry ?? []).length);
    expect(hrefs).toContain(`${url}feed.atom`);
    for (const href of hrefs) expect([`${url}feed.atom`, `${url}index.html`]).toContain(href);
    // Private: links only open signed, so they stay relative (the reader keeps the signed feed's query).
    expect(privateFeed.text).toContain('<link rel="self" href="feed.atom"');
    expect(privateFeed.text).not.toContain(url);
  }, 60_000);
});
