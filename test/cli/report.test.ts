/**
 * `shieldwatch report` through the real CLI: real poll cycles (loopback API, dynalite) with a status change
 * and a traffic spike fill the store; `report` reads it with the store settings only and writes one HTML file.
 * What the page looks like in a browser is test/browser/report.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UptimeReport } from '../../lambda/core/uptime.ts';
import { formatShare } from '../../lambda/report/data.ts';
import { describeRun, parseJsonOutput, runCli, startWorld, type World } from './helpers.ts';

/** The JSON data block of a report. */
function reportData(html: string): {
  from: number;
  to: number;
  networks: Array<{ id: string; fields: string[]; x: number[]; ys: Array<Array<number | null>> }>;
} {
  const match = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
  expect(match, 'the data block').not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('shieldwatch report, run for real', () => {
  let world: World;
  let dir: string;
  let status = 'active';
  let spike = false;
  let reportEnv: Record<string, string>;
  const pollTimes: number[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shieldwatch-report-'));
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_ALERT_AFTER: '1',
        SHIELDWATCH_RETRIES: '0',
      },
      api: {
        filter: () => ({ body: { status } }),
        network: (id) => ({
          body: { id: 42, traffic: { in_pps: id === 'edge-1' && spike ? 950_000 : 1200, in_bps: 9_600_000 } },
        }),
      },
    });
    reportEnv = { ...world.storeEnv, SHIELDWATCH_NETWORKS: 'edge-1,edge-2' };
    for (const step of [
      { status: 'active', spike: false },
      { status: 'active', spike: false },
      { status: 'mitigating', spike: true },
      { status: 'mitigating', spike: false },
      { status: 'active', spike: false },
    ]) {
      status = step.status;
      spike = step.spike;
      pollTimes.push(Date.now());
      const run = await runCli(['poll'], world.env);
      expect(run.code, describeRun(run)).toBe(0);
    }
  }, 60_000);
  afterAll(async () => {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes one self-contained file with the store settings only, and prints its path', async () => {
    // Prepare
    const out = join(dir, 'report.html');

    // Act
    const run = await runCli(['report', '--out', out], reportEnv);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout.trim()).toBe(out);
    expect(run.stderr).toMatch(/report: 2 network chart\(s\), 2 event\(s\), \d+ KB/);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:;`,
    );
    // Nothing that could load anything: no src or href attribute, no CSS url() or @import, no link element.
    expect(html).not.toMatch(/\ssrc=|\shref=|url\(|@import|<link|<iframe|<img/i);
    // The only address in the file is text: uPlot's licence banner (a comment). Not where the store is: the
    // file is meant to be mailed (docs/report.md).
    expect(new Set(html.match(/https?:\/\/[\w.:/-]*\w/g))).toEqual(
      new Set(['https://github.com/leeoniya/uPlot']),
    );
    expect(html).not.toContain(world.dynamo.endpoint);
    expect(html).not.toContain(world.api.key);
    expect(html).toContain(`table <code>${world.dynamo.table}</code>`);
  });

  it('shows each network with its figures (the spike included), the status band, the changes and the uptime', async () => {
    // Prepare
    const out = join(dir, 'content.html');
    const since = new Date(pollTimes[0]! - 60_000).toISOString();
    const until = new Date(Date.now() + 1000).toISOString();

    // Act
    const run = await runCli(['report', '--out', out, '--since', since, '--until', until], reportEnv);
    const uptime = await runCli(
      ['uptime', '--since', since, '--until', until, '--format', 'json'],
      reportEnv,
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    const html = readFileSync(out, 'utf8');
    const data = reportData(html);
    expect(data.networks.map((n) => n.id)).toEqual(['edge-1', 'edge-2']);
    for (const network of data.networks) {
      expect(network.x).toHaveLength(5);
      expect(network.fields).toEqual(['traffic.in_pps', 'traffic.in_bps']);
    }
    expect(Math.max(...(data.networks[0]!.ys[0] as number[]))).toBe(950_000);
    expect(Math.max(...(data.networks[1]!.ys[0] as number[]))).toBe(1200);
    expect(html).toMatch(/<li class="seg [^"]+"[^>]*data-status="active"><span class="label">active</);
    expect(html).toMatch(
      /<li class="seg [^"]+"[^>]*data-status="mitigating"><span class="label">mitigating</,
    );
    expect(html).toContain('&#34;active&#34; -&#62; &#34;mitigating&#34;');
    expect(html).toContain('&#34;mitigating&#34; -&#62; &#34;active&#34;');
    // The uptime shares are the ones shieldwatch uptime prints for the same window.
    const expected = parseJsonOutput<UptimeReport>(uptime);
    expect(expected.statuses.map((s) => s.status).sort()).toEqual(['active', 'mitigating']);
    for (const s of expected.statuses) {
      expect(html).toMatch(
        new RegExp(
          `aria-hidden="true"></span>${s.status}</td><td class="num">${formatShare(s.share).replace('.', '\\.')}</td>`,
        ),
      );
    }
    expect(html).toContain(`(${expected.availability.cycles} cycles, 0 failed)`);
  });

  it('writes shieldwatch-report.html in the working directory by default, and replaces it', async () => {
    // Prepare
    const cwd = mkdtempSync(join(dir, 'cwd-'));

    // Act
    const first = await runCli(['report'], reportEnv, { cwd });
    const second = await runCli(['report', '--networks', 'edge-2'], reportEnv, { cwd });

    // Assess
    expect(first.code, describeRun(first)).toBe(0);
    expect(second.code, describeRun(second)).toBe(0);
    expect(second.stdout.trim()).toBe(join(cwd, 'shieldwatch-report.html'));
    const data = reportData(readFileSync(join(cwd, 'shieldwatch-report.html'), 'utf8'));
    expect(data.networks.map((n) => n.id)).toEqual(['edge-2']);
  });

  it('never creates a store: with none here it fails, writing nothing', async () => {
    // Prepare
    const cwd = mkdtempSync(join(dir, 'empty-'));

    // Act
    const run = await runCli(['report'], {}, { cwd });

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toMatch(/^shieldwatch report: .*store/m);
    expect(existsSync(join(cwd, '.shieldwatch'))).toBe(false);
    expect(existsSync(join(cwd, 'shieldwatch-report.html'))).toBe(false);
  });

  it.each([
    {
      args: ['--since', 'yesterday'],
      code: 2,
      error: /--since must be a duration like 90s, 30m, 24h, 7d, 2w or an ISO date \(got "yesterday"\)/,
    },
    { args: ['--since', '1d', '--until', '2d'], code: 2, error: /--since \(.*\) is after --until/ },
    { args: ['--out', ''], code: 2, error: /--out needs a file name/ },
    { args: ['--outt', 'x.html'], code: 2, error: /unknown option --outt \(did you mean --out\?\)/ },
    {
      args: ['--out', '/nonexistent-dir/r.html'],
      code: 1,
      error: /cannot write the report to \/nonexistent-dir\/r\.html: its directory does not exist/,
    },
    { args: ['--out', '/tmp'], code: 1, error: /cannot write the report to \/tmp: that is a directory/ },
  ])('refuses $args clearly (exit $code)', async ({ args, code, error }) => {
    // Act
    const run = await runCli(['report', ...args], reportEnv);

    // Assess
    expect(run.code, describeRun(run)).toBe(code);
    expect(run.stderr).toMatch(error);
    expect(run.stdout).toBe('');
  });

  it('a bad SHIELDWATCH_FIGURE_FIELDS is a configuration error naming it', async () => {
    // Act
    const run = await runCli(['report', '--out', join(dir, 'x.html')], {
      ...reportEnv,
      SHIELDWATCH_FIGURE_FIELDS: 'traffic..in',
    });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toMatch(/SHIELDWATCH_FIGURE_FIELDS "traffic\.\.in" has an empty segment/);
  });

  it('--help says what it shows and its options', async () => {
    // Act
    const run = await runCli(['report', '--help']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Usage: shieldwatch report \[--since 7d\|ISO\] \[--until \.\.\.\] \[--out FILE\]/,
    );
    expect(run.stdout).toContain('--out FILE       the file to write (default shieldwatch-report.html');
    expect(run.stdout).toContain('Prints the path of the file written.');
  });
});
