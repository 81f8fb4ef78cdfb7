/**
 * One publish of the hosted status page (docs/status-page.md): reads the table as `shieldwatch report` does
 * (Query only, page by page, one report at a time so memory holds one window's reduced charts, never the
 * history), the one listing of incidents and the silences once for both reports and `status.json` (CONTRACT
 * §15, "One view"), and writes the page's objects to the bucket. The reports of 7 days and 24 hours go first, then
 * `status.json`, `feed.atom` (CONTRACT §19, `feed.ts`) and the landing page last, so a reader never follows a link
 * to a page not yet written.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { KEY } from '../adapters/table-schema.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import type { WindowRequest } from '../core/silences/maintenance-window.ts';
import { collectReport, readPresentSources } from '../report/build.ts';
import type { ReportData } from '../report/data.ts';
import { type ReportAssets, renderReportHtml } from '../report/html.ts';
import { buildFeed, FEED_CONTENT_TYPE, renderFeed } from './feed.ts';
import { PAGE_KEYS, PAGE_WINDOWS, renderLandingPage, renderPublicPage, type WindowUptime } from './pages.ts';
import { type PageMode, type StatusDocument, statusDocument } from './status-document.ts';

/**
 * How long CloudFront and browsers keep an object: a minute, so a page rewritten every few minutes is never
 * served older than that (CloudFront honours the origin's Cache-Control).
 */
export const PAGE_CACHE_CONTROL = 'max-age=60, must-revalidate';

/** What a publish needs besides its clients. */
export interface PublishRequest {
  readonly table: string;
  readonly bucket: string;
  readonly mode: PageMode;
  /** Networks to chart (private); those named by rule alerts in the window are added. */
  readonly networks: readonly string[];
  readonly expected?: string;
  readonly rules?: readonly Rule[];
  readonly figureFields?: readonly string[];
  /** The maintenance windows declared in context: shown like those stored in the table. */
  readonly maintenance?: readonly WindowRequest[];
  /** The chart library and the report's own CSS and script (private: the reports are written). */
  readonly assets: ReportAssets;
  /** Seconds between two publishes (the pages reload that often). */
  readonly everySeconds: number;
  /** Now, epoch ms. */
  readonly nowMs: number;
  /**
   * The key the public page's incident ids are made with (`public-id.ts`; the stack's secret, read by the
   * handler). Needed by `public`, unused by `private`.
   */
  readonly publicIdKey?: string;
  /** The page's address, `https://<distribution>/` (the public feed's links are absolute with it). */
  readonly url?: string;
}

/** What was written. */
export interface PublishResult {
  /** Object keys written, in order, with their sizes in bytes. */
  readonly written: ReadonlyArray<{ readonly key: string; readonly bytes: number }>;
  /** Report objects removed (public: a page that was private before must not keep its full reports). */
  readonly removed: readonly string[];
  readonly document: StatusDocument;
}

/** The `at` of the newest filter snapshot (one Query, newest first, one item): when the last cycle ran. */
export async function lastCycleAt(client: DynamoDBClient, table: string): Promise<string | null> {
  const out = await DynamoDBDocumentClient.from(client).send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': KEY.filter },
      ExpressionAttributeNames: { '#at': 'at' },
      ProjectionExpression: '#at',
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const at = out.Items?.[0]?.['at'];
  return typeof at === 'string' ? at : null;
}

/** Writes the page once. Throws when the table cannot be read or an object cannot be written. */
export async function publishStatusPage(
  dynamo: DynamoDBClient,
  s3: S3Client,
  request: PublishRequest,
): Promise<PublishResult> {
  const written: Array<{ key: string; bytes: number }> = [];
  const put = async (key: string, body: string, contentType: string) => {
    await s3.send(
      new PutObjectCommand({
        Bucket: request.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        CacheControl: PAGE_CACHE_CONTROL,
      }),
    );
    written.push({ key, bytes: Buffer.byteLength(body) });
  };
  if (request.mode === 'public' && request.publicIdKey === undefined) {
    throw new Error('the public status page needs its public id key (STATUS_PAGE_ID_SECRET)');
  }
  const until = new Date(request.nowMs).toISOString();
  const windows: WindowUptime[] = [];
  let week: Pick<ReportData, 'present' | 'generatedAt'> | undefined;
  // The listing and the silences, read once: the incidents of the longest window and every open one.
  const present = await readPresentSources(
    { client: dynamo, table: request.table },
    new Date(request.nowMs - PAGE_WINDOWS[0].ms).toISOString(),
    {
      nowMs: request.nowMs,
      ...(request.maintenance === undefined ? {} : { maintenance: request.maintenance }),
    },
  );
  for (const window of PAGE_WINDOWS) {
    const data = await collectReport(
      { client: dynamo, table: request.table },
      {
        since: new Date(request.nowMs - window.ms).toISOString(),
        until,
        // Public: no network is read at all; the page shows none of their figures.
        networks: request.mode === 'public' ? [] : request.networks,
        onlyNetworks: request.mode === 'public',
        table: request.table,
        nowMs: request.nowMs,
        present,
        ...(request.expected === undefined ? {} : { expected: request.expected }),
        ...(request.rules === undefined ? {} : { rules: request.rules }),
        ...(request.figureFields === undefined ? {} : { figureFields: request.figureFields }),
      },
    );
    if (request.mode === 'private') {
      await put(window.key, renderReportHtml(data, request.assets), 'text/html; charset=utf-8');
    }
    windows.push({ label: window.label, uptime: data.uptime });
    // Keep only the present of the longest window: the charts of one window are dropped before the next is read.
    week ??= { present: data.present, generatedAt: data.generatedAt };
  }
  const document = statusDocument(
    {
      present: week!.present,
      generatedAt: week!.generatedAt,
      incidents: present.incidents,
      lastCycleAt: await lastCycleAt(dynamo, request.table),
    },
    request.mode,
    request.publicIdKey,
  );
  const input = {
    document,
    refreshSeconds: request.everySeconds,
    ...(request.expected === undefined ? {} : { expected: request.expected }),
  };
  const removed: string[] = [];
  if (request.mode === 'public') {
    for (const window of PAGE_WINDOWS) {
      await s3.send(new DeleteObjectCommand({ Bucket: request.bucket, Key: window.key }));
      removed.push(window.key);
    }
  }
  await put(PAGE_KEYS.status, `${JSON.stringify(document, null, 2)}\n`, 'application/json; charset=utf-8');
  const feed = buildFeed({
    incidents: present.incidents,
    mode: request.mode,
    pageId: request.bucket,
    nowMs: request.nowMs,
    ...(request.publicIdKey === undefined ? {} : { publicIdKey: request.publicIdKey }),
    ...(request.rules === undefined ? {} : { rules: request.rules }),
  });
  await put(
    PAGE_KEYS.feed,
    renderFeed(feed, request.mode === 'public' ? request.url : undefined),
    FEED_CONTENT_TYPE,
  );
  await put(
    PAGE_KEYS.index,
    request.mode === 'private'
      ? renderLandingPage(input)
      : renderPublicPage({ ...input, windows: [...windows].reverse() }),
    'text/html; charset=utf-8',
  );
  return { written, removed, document };
}
