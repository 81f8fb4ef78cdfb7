/**
 * `status.json` and the public page's ids (CONTRACT §15; docs/status-page.md): the open incidents of the one
 * listing, private as the rows `shieldwatch incidents --format json` prints, public reduced to kind, time and
 * count of networks under an id nobody can compute from a rule, a network and a time.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type IncidentView, listingRow } from '../../lambda/core/incidents/incident-list.ts';
import { renderLandingPage, renderPublicPage } from '../../lambda/status-page/pages.ts';
import { publicIncidentId } from '../../lambda/status-page/public-id.ts';
import { loadPublisherConfig, PUBLISHER_ENV } from '../../lambda/status-page/publisher-env.ts';
import { statusDocument } from '../../lambda/status-page/status-document.ts';

const KEY = 'a-stack-key-of-sixty-four-characters-0123456789abcdefghijklmnopqr';
const T = (minute: number) => new Date(Date.parse('2026-05-01T10:00:00Z') + minute * 60_000).toISOString();

const views: IncidentView[] = [
  {
    id: `pps@${T(-12_000)}`,
    kind: 'rule',
    rule: 'pps',
    about: 'pps',
    state: 'acknowledged',
    openedAt: T(-12_000),
    networks: [{ network: '10042', peak: 987_654, peakAt: T(-11_990) }],
    acknowledged: { by: 'link', at: T(-5), note: 'upstream scrubbing' },
    members: [{ network: '10042', joinedAt: T(-12_000), peak: 987_654, peakAt: T(-11_990) }],
    timeline: [],
    alerts: [],
  },
  {
    id: `network.unreachable/0/${T(-3)}`,
    kind: 'network',
    about: 'network unreachable',
    state: 'open',
    openedAt: T(-3),
    networks: [{ network: '10043' }, { network: '10044' }],
    members: [
      { network: '10043', joinedAt: T(-3) },
      { network: '10044', joinedAt: T(-3) },
    ],
    timeline: [],
    alerts: [],
  },
  {
    id: `pps@${T(-100)}`,
    kind: 'rule',
    rule: 'pps',
    about: 'pps',
    state: 'resolved',
    openedAt: T(-100),
    resolvedAt: T(-50),
    networks: [{ network: '10045' }],
    members: [],
    timeline: [],
    alerts: [],
  },
];

const present = {
  status: 'active',
  statusSince: Date.parse(T(-60)),
  away: false,
  silences: [
    {
      id: 's-abcdefgh',
      pattern: '*',
      reason: 'firmware upgrade',
      startsAt: T(-10),
      endsAt: T(110),
      active: true,
    },
  ],
};
const input = { present, generatedAt: T(0), incidents: views, lastCycleAt: T(-1) };

describe('publicIncidentId', () => {
  it('is stable for one key, differs between keys and incidents, and is no hash of the id alone', () => {
    // Act
    const id = publicIncidentId(KEY, 'pps@2026-05-01T10:00:00.000Z');

    // Assess
    expect(id).toMatch(/^i-[0-9a-f]{20}$/);
    expect(publicIncidentId(KEY, 'pps@2026-05-01T10:00:00.000Z')).toBe(id);
    expect(publicIncidentId(`${KEY}x`, 'pps@2026-05-01T10:00:00.000Z')).not.toBe(id);
    expect(publicIncidentId(KEY, 'pps@2026-05-01T10:01:00.000Z')).not.toBe(id);
    const unsalted = createHash('sha256').update('pps@2026-05-01T10:00:00.000Z').digest('hex');
    expect(unsalted).not.toContain(id.slice(2, 12));
  });

  it('refuses a short key', () => {
    expect(() => publicIncidentId('short', 'x')).toThrow(/at least 32/);
  });
});

describe('statusDocument', () => {
  it('private: every open incident of the listing as its row (acknowledgement and all), the silences', () => {
    // Act
    const document = statusDocument(input, 'private');

    // Assess
    expect(document.openIncidents).toEqual([listingRow(views[0]!), listingRow(views[1]!)]);
    expect(document.openIncidents[0]).toMatchObject({
      id: `pps@${T(-12_000)}`,
      state: 'acknowledged',
      acknowledged: { by: 'link', note: 'upstream scrubbing' },
    });
    expect(document.silences).toEqual(present.silences);
    expect(document).not.toHaveProperty('maintenanceUntil');
  });

  it('public: kind, time and count of networks under an opaque id; maintenance until; nothing else', () => {
    // Act
    const document = statusDocument(input, 'public', KEY);
    const text = JSON.stringify(document);
    const page = renderPublicPage({ document, refreshSeconds: 300, windows: [] });

    // Assess
    expect(document.openIncidents).toEqual([
      { id: publicIncidentId(KEY, views[0]!.id), kind: 'rule', openedAt: T(-12_000), networkCount: 1 },
      { id: publicIncidentId(KEY, views[1]!.id), kind: 'network', openedAt: T(-3), networkCount: 2 },
    ]);
    expect(document.maintenanceUntil).toBe(T(110));
    for (const out of [text, page]) {
      for (const secret of [
        '10042',
        '10043',
        'pps',
        views[0]!.id,
        views[1]!.id,
        'firmware',
        's-abcdefgh',
        'link',
      ]) {
        expect(out).not.toContain(secret);
      }
    }
    expect(page).toContain('Maintenance until');
    expect(page).toContain('2 open incidents');
  });

  it('public without its key is refused', () => {
    expect(() => statusDocument(input, 'public')).toThrow(/public id key/);
  });

  it('private landing page: who acknowledged, when and the note; the silence with its reason and end', () => {
    // Act
    const page = renderLandingPage({ document: statusDocument(input, 'private'), refreshSeconds: 300 });

    // Assess
    expect(page).toContain('acknowledged by <strong>link</strong>');
    expect(page).toContain('upstream scrubbing');
    expect(page).toContain('Network unreachable');
    expect(page).toContain('firmware upgrade');
    expect(page).toMatch(
      /Silenced: every alert recorded, not sent, until <time[^>]*>2026-05-01 11:50:00 UTC/,
    );
  });
});

describe('the publisher configuration', () => {
  const env = {
    SHIELDWATCH_TABLE: 'shieldwatch',
    [PUBLISHER_ENV.bucket]: 'page-bucket',
    [PUBLISHER_ENV.everySeconds]: '300',
  };

  it('public needs the secret of its id key; private does not', () => {
    expect(() => loadPublisherConfig({ ...env, [PUBLISHER_ENV.mode]: 'public' })).toThrow(
      /STATUS_PAGE_ID_SECRET/,
    );
    expect(
      loadPublisherConfig({ ...env, [PUBLISHER_ENV.mode]: 'public', [PUBLISHER_ENV.idSecret]: 'arn:x' }),
    ).toMatchObject({
      idSecret: 'arn:x',
    });
    expect(loadPublisherConfig({ ...env, [PUBLISHER_ENV.mode]: 'private' }).idSecret).toBeUndefined();
  });

  it('reads the maintenance windows declared in context', () => {
    const config = loadPublisherConfig({
      ...env,
      [PUBLISHER_ENV.mode]: 'private',
      SHIELDWATCH_MAINTENANCE: JSON.stringify([
        { start: '02:00', for: '2h', repeat: 'daily', tz: 'UTC', reason: 'nightly' },
      ]),
    });
    expect(config.maintenance).toEqual([expect.objectContaining({ reason: 'nightly' })]);
  });
});
