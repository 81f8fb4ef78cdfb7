/**
 * A filter status keeps its colour across reports and runs, and red and green mean something (issue 32.4):
 * the report's band, legend and uptime swatches give a status the hue its text picks (status-colours.ts), the
 * same whatever else the window holds; the hues have neither red nor green; only with an expected status is
 * the expected one green and any other marked red (`status-away`, drawn in --bad).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../lambda/core/types.ts';
import { readReportAssets } from '../../lambda/report/build.ts';
import { prepareReport } from '../../lambda/report/data.ts';
import { renderReportHtml } from '../../lambda/report/html.ts';
import { STATUS_COLOURS, statusColour } from '../../lambda/report/status-colours.ts';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const MINUTE = 60_000;
const iso = (m: number) => new Date(T0 + m * MINUTE).toISOString();
const seen = (m: number, status: string): Snapshot => ({
  target: { kind: 'filter' },
  at: iso(m),
  cycleId: `c${m}`,
  ok: true,
  status,
  httpStatus: 200,
  latencyMs: 10,
});

/** Each status's classes in the rendered report's band (`data-status`) and legend, by status. */
function colourClasses(history: Array<[number, string]>, expected?: string): Map<string, string> {
  const filter = history.map(([m, status]) => seen(m, status));
  const html = renderReportHtml(
    prepareReport({
      generatedAt: iso(60),
      table: 't',
      since: iso(0),
      until: iso(60),
      filter,
      events: [],
      networks: [],
      ...(expected === undefined ? {} : { expected }),
    }),
    readReportAssets(),
  );
  const classes = new Map<string, string>();
  for (const m of html.matchAll(/<li class="seg ([^"]+)"[^>]*data-status="([^"]*)"/g)) {
    const [, cls, status] = m as unknown as [string, string, string];
    if (classes.has(status)) expect(classes.get(status)).toBe(cls);
    classes.set(status, cls);
  }
  return classes;
}

/** Every minute one snapshot: `a` for the first `n` minutes, then `b` to the end. */
const history = (a: string, n: number, b: string): Array<[number, string]> =>
  Array.from({ length: 61 }, (_, m) => [m, m < n ? a : b]);

describe('status colours', () => {
  it('a status has the same colour in two reports whatever else they hold and for how long', () => {
    // "maintenance" held longest in the first report, shortest in the second; "mitigating" only in the second.
    const first = colourClasses(history('maintenance', 50, 'active'));
    const second = colourClasses([
      ...history('active', 40, 'maintenance').slice(0, 45),
      ...history('x', 0, 'mitigating').slice(45),
    ]);
    expect(first.get('maintenance')).toBe(second.get('maintenance'));
    expect(first.get('active')).toBe(second.get('active'));
    expect(first.get('maintenance')).toBe(`s${statusColour('maintenance')}`);
  });

  it('without an expected status, no status is green or marked away', () => {
    const classes = colourClasses(history('active', 30, 'mitigating'));
    for (const cls of classes.values()) {
      expect(cls).toMatch(/^s\d$/);
    }
  });

  it('with an expected status: the expected one green, the others their own hue marked away', () => {
    const classes = colourClasses(history('active', 30, 'mitigating'), 'active');
    expect(classes.get('active')).toBe('expected');
    expect(classes.get('mitigating')).toBe(`s${statusColour('mitigating')} status-away`);
  });

  it.each([
    ['active', 'mitigating'],
    ['on', 'off'],
    ['true', 'false'],
    ['enabled', 'disabled'],
    ['0', '1'],
    ['1', '2'],
    ['active', 'maintenance'],
  ])('%s and %s, statuses met together, have different hues', (a, b) => {
    expect(statusColour(a)).not.toBe(statusColour(b));
  });

  it('the hues (light and dark) have neither red nor green in them', () => {
    const css = readFileSync(new URL('../../lambda/report/page.css', import.meta.url), 'utf8');
    const hues = [...css.matchAll(/--s(\d): #([0-9a-f]{6});/g)].map(([, i, hex]) => ({
      i,
      hue: hueOf(hex!),
    }));
    expect(hues).toHaveLength(STATUS_COLOURS * 2);
    for (const { i, hue } of hues) {
      const saturated = hue.saturation > 0.25;
      const red = hue.degrees < 20 || hue.degrees > 340;
      const green = hue.degrees > 80 && hue.degrees < 160;
      expect({ i, ...hue, redOrGreen: saturated && (red || green) }).toMatchObject({ redOrGreen: false });
    }
  });
});

function hueOf(hex: string): { degrees: number; saturation: number } {
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  const l = (max + min) / 2;
  const saturation = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  let degrees = 0;
  if (d !== 0) {
    if (max === r) degrees = 60 * (((g - b) / d) % 6);
    else if (max === g) degrees = 60 * ((b - r) / d + 2);
    else degrees = 60 * ((r - g) / d + 4);
  }
  return { degrees: (degrees + 360) % 360, saturation };
}
