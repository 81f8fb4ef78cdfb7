import { resolve } from 'node:path';
import { ConfigError, loadStoreConfig } from '../../lambda/config.ts';
import { parseFigureFields } from '../../lambda/core/detect/figures.ts';
import type { Rule } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import { parseMaintenance } from '../../lambda/core/silences/maintenance-config.ts';
import type { WindowRequest } from '../../lambda/core/silences/maintenance-window.ts';
import {
  collectReport,
  DEFAULT_REPORT_FILE,
  readReportAssets,
  writeReport,
} from '../../lambda/report/build.ts';
import { type FigureUnit, parseFigureUnits } from '../../lambda/report/units.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { boundedWindow, defineCommand, WINDOW_OPTIONS } from '../args.ts';
import { UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A comma list of ids, blanks and repeats dropped. */
function idList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
}

/** SHIELDWATCH_FIGURE_FIELDS when set (drawn first); a bad value is a configuration error naming it. */
function figureFields(env: Env): string[] | undefined {
  const text = env[SETTINGS.figureFields.env];
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseFigureFields(text);
  if (!parsed.ok) throw new ConfigError(parsed.problems.map((p) => `${SETTINGS.figureFields.env} ${p}`));
  return parsed.fields;
}

/** SHIELDWATCH_FIGURE_UNITS when set; a bad value is a configuration error naming it. */
function figureUnits(env: Env): ReadonlyMap<string, FigureUnit> | undefined {
  const text = env[SETTINGS.figureUnits.env];
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseFigureUnits(text);
  if (!parsed.ok) throw new ConfigError(parsed.problems.map((p) => `${SETTINGS.figureUnits.env} ${p}`));
  return parsed.units;
}

/** SHIELDWATCH_RULES when set, for their thresholds; a bad value is a configuration error naming it. */
function rulesInForce(env: Env): Rule[] | undefined {
  const text = env[SETTINGS.rules.env];
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseRules(text);
  if (parsed.problems.length > 0)
    throw new ConfigError(parsed.problems.map((p) => `${SETTINGS.rules.env} ${p}`));
  return parsed.rules;
}

/** SHIELDWATCH_MAINTENANCE when set: its windows' occurrences show in the present; a bad value names it. */
function declaredWindows(env: Env, nowMs: number): WindowRequest[] | undefined {
  const text = env[SETTINGS.maintenance.env];
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseMaintenance(text, nowMs, false);
  if (!parsed.ok) throw new ConfigError(parsed.problems.map((p) => `${SETTINGS.maintenance.env}: ${p}`));
  return parsed.requests;
}

export const reportCommand = defineCommand({
  name: 'report',
  usage: ['report [--since 7d|ISO] [--until ...] [--out FILE] [--networks A,B]'],
  description: [
    'Reads the store (never writes it, never calls the API) and writes one HTML file that opens offline,',
    'with no request to any host or file, and can be mailed or attached to a ticket as it is:',
    '  - now: the filter status, the open incidents with their networks and peaks, or "all clear since";',
    '  - the incidents of the window: kind, rule, start, end, duration, networks, peaks;',
    '  - the filter status over time as a band coloured and labelled per status, the changes marked;',
    '  - the uptime for the window (the same figures as shieldwatch uptime);',
    '  - per network, one chart per unit (pps, bps, ...) of its numeric figures, rule thresholds drawn,',
    '    rule alerts marked (long histories are drawn as the smallest and largest value per time slice,',
    '    so spikes stay visible);',
    '  - the events: status changes, incidents, rule alerts, suppressed alerts;',
    '  - when it was made and from which table (not where the store is).',
    'Prints the path of the file written.',
  ].join('\n'),
  options: {
    since: {
      ...WINDOW_OPTIONS.since,
      description: 'from WHEN: a duration back from now (24h, 7d, 30d) or an ISO date',
      default: '7d',
    },
    until: { ...WINDOW_OPTIONS.until, description: 'up to WHEN (default now)' },
    out: {
      type: 'string',
      value: 'FILE',
      // The default is in the text, with what becomes of a file already there.
      description: `the file to write (default ${DEFAULT_REPORT_FILE}; replaced when it exists, a symbolic link there replaced by the file, never written through)`,
    },
    networks: {
      type: 'string',
      value: 'A,B',
      description: `only these networks are read and charted (default ${SETTINGS.networks.env} and the networks rule alerts in the window name)`,
    },
  },
  examples: [
    'report',
    'report --since 30d --out last-month.html',
    'report --networks edge-1,edge-2 --stack Shieldwatch',
  ],
  notes: [
    `Needs only the store settings (SHIELDWATCH_TABLE, AWS settings or the embedded store); reads`,
    `${SETTINGS.figureFields.env} (drawn first), ${SETTINGS.expectedStatus.env} (coloured green),`,
    `${SETTINGS.rules.env} (thresholds drawn), ${SETTINGS.figureUnits.env} (units) and`,
    `${SETTINGS.maintenance.env} (its windows shown in the present beside the stored silences) when set.`,
    'Exit codes: 0 written; 1 the store could not be read or the file not written; 2 bad usage.',
  ].join('\n'),
  async run(values, io: CliIo) {
    const nowMs = io.now();
    const { since, until } = boundedWindow(values, '7d', nowMs);
    const out = values.out ?? DEFAULT_REPORT_FILE;
    if (out.trim() === '') throw new UsageError('--out needs a file name');
    const path = resolve(process.cwd(), out);
    const named = values.networks !== undefined;
    const networks = idList(values.networks ?? io.env[SETTINGS.networks.env] ?? '');
    const fields = figureFields(io.env);
    const units = figureUnits(io.env);
    const rules = rulesInForce(io.env);
    const maintenance = declaredWindows(io.env, nowMs);
    const rawExpected = io.env[SETTINGS.expectedStatus.env];
    const expected = rawExpected !== undefined && rawExpected.trim() !== '' ? rawExpected : undefined;
    const assets = readReportAssets();
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const data = await storeCall(store, () =>
        collectReport(
          { client: store.client, table: config.table },
          {
            since,
            until,
            networks,
            onlyNetworks: named,
            table: config.table,
            nowMs,
            ...(fields === undefined ? {} : { figureFields: fields }),
            ...(expected === undefined ? {} : { expected }),
            ...(units === undefined ? {} : { units }),
            ...(rules === undefined ? {} : { rules }),
            ...(maintenance === undefined ? {} : { maintenance }),
          },
        ),
      );
      const bytes = await writeReport(path, data, assets);
      println(
        io.stderr,
        `report: ${data.networks.length} network chart(s), ${data.eventCount} event(s), ${Math.ceil(bytes / 1024)} KB`,
      );
      println(io.stdout, path);
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
