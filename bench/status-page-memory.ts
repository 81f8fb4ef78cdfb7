/**
 * `npx tsx --expose-gc bench/status-page-memory.ts [networks]`: what one publish of the status page costs
 * (docs/status-page.md): a week of one-minute snapshots of the filter and `networks` networks (default 5,
 * test/fixtures/report-history.ts) written to dynalite on loopback, then one private publish (both reports,
 * status.json, the landing page) to moto_server's S3 on loopback. Prints the time and the peak heap and RSS
 * above what the process held before the publish, sampled every 5 ms.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoStore } from '../lambda/adapters/dynamo-store.ts';
import { readReportAssets } from '../lambda/report/build.ts';
import { publishStatusPage } from '../lambda/status-page/publish.ts';
import { startDynamo } from '../test/fixtures/dynalite.ts';
import { startMoto } from '../test/fixtures/moto-server.ts';
import { longHistory } from '../test/fixtures/report-history.ts';

const networks = Number(process.argv[2] ?? 5);
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
const untilMs = Date.now();
const history = longHistory({ days: 7, networks, untilMs });
const dynamo = await startDynamo();
const moto = await startMoto();
const s3 = new S3Client({
  endpoint: moto.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
});
try {
  const store = new DynamoStore(dynamo.client, dynamo.table);
  const all = [...history.filter, ...history.networks.flatMap((n) => n.snapshots)];
  for (let i = 0; i < all.length; i += 500) {
    await store.putSnapshots(all.slice(i, i + 500), Math.floor(untilMs / 1000) + 86_400);
  }
  for (const event of history.events) await store.recordEvent(event as never);
  await s3.send(new CreateBucketCommand({ Bucket: 'bench-page' }));
  const assets = readReportAssets();
  const ids = history.networks.map((n) => n.id);
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
  }, 5);
  const started = performance.now();
  const result = await publishStatusPage(dynamo.client, s3, {
    table: dynamo.table,
    bucket: 'bench-page',
    mode: 'private',
    networks: ids,
    assets,
    everySeconds: 300,
    nowMs: untilMs,
  });
  clearInterval(sampler);
  console.log(
    `${all.length} snapshots (${networks} networks + the filter, 7 days at 1 min), ${history.events.length} events`,
  );
  console.log(`publish: ${Math.round(performance.now() - started)} ms`);
  for (const w of result.written) console.log(`  ${w.key}: ${Math.ceil(w.bytes / 1024)} KB`);
  console.log(
    `peak heap above the start: ${mb(peakHeap - base.heapUsed)} (heap at start ${mb(base.heapUsed)})`,
  );
  console.log(`peak RSS above the start:  ${mb(peakRss - base.rss)} (RSS at start ${mb(base.rss)})`);
} finally {
  s3.destroy();
  await dynamo.close();
  await moto.stop();
}
