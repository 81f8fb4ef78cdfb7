import { ConfigError, loadStoreConfig } from '../../lambda/config.ts';
import { renderDigestHtml } from '../../lambda/core/digest/digest-html.ts';
import { renderDigestText } from '../../lambda/core/digest/digest-text.ts';
import { parseMaintenance } from '../../lambda/core/silences/maintenance-config.ts';
import type { WindowRequest } from '../../lambda/core/silences/maintenance-window.ts';
import { readDigest } from '../../lambda/digest/read-digest.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { defineCommand } from '../args.ts';
import { parseTimeArg, printable, printableJson, UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** SHIELDWATCH_MAINTENANCE when set: its windows' occurrences count among the period's; a bad value names it. */
function declaredWindows(env: CliIo['env'], nowMs: number): WindowRequest[] | undefined {
  const text = env[SETTINGS.maintenance.env];
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseMaintenance(text, nowMs, false);
  if (!parsed.ok) throw new ConfigError(parsed.problems.map((p) => `${SETTINGS.maintenance.env}: ${p}`));
  return parsed.requests;
}

export const digestCommand = defineCommand({
  name: 'digest',
  usage: ['digest [--since 24h|7d|ISO] [--format text|html|json]'],
  description: [
    'The period at a glance, from the store (read only: it never creates a store, never calls the API):',
    '  - incidents opened and resolved in the period, per kind and per rule; how many are open at its end;',
    '  - per rule, the networks with the highest peaks in the period;',
    '  - time to acknowledge and time to resolve (median and worst, nearest rank) over the incidents',
    '    opened or resolved in the period and those open at its end, as `incidents --stats` computes them;',
    '  - the share of each filter status, time-weighted: each filter snapshot holds until the next one,',
    '    stretches with no snapshot (the monitor not running) left out, as `uptime` computes it;',
    '  - the API availability: the share of cycles whose filter request got an answer (anything but a',
    '    time-out, connection error, 5xx or 429), and the share of monitored time;',
    '  - the silences and maintenance-window occurrences that overlap the period.',
    'The period runs from --since to now.',
  ].join('\n'),
  options: {
    since: {
      type: 'string',
      value: 'WHEN',
      default: '24h',
      description: 'start of the period: a duration back from now (24h, 7d) or an ISO date',
      examples: ['24h', '7d', '2026-11-01'],
    },
    format: {
      type: 'string',
      value: 'FORMAT',
      choices: ['text', 'html', 'json'],
      default: 'text',
      description:
        'text; html, a self-contained page (no external assets); json, the digest object (docs/cli.md)',
    },
  },
  examples: [
    'digest',
    'digest --since 7d',
    'digest --since 7d --format html > week.html',
    'digest --format json',
  ],
  notes: [
    `Reads ${SETTINGS.maintenance.env} (its windows count beside the stored silences) when set.`,
    'Exit codes: 0 printed, 1 no store here or the store failed, 2 bad usage or configuration.',
  ].join('\n'),
  async run(values, io) {
    const nowMs = io.now();
    const since = parseTimeArg('--since', values.since, nowMs);
    const until = new Date(nowMs).toISOString();
    if (Date.parse(since) > nowMs) {
      throw new UsageError(`--since ${values.since} is in the future (${since}): the period would be empty`);
    }
    const windows = declaredWindows(io.env, nowMs);
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const digest = await storeCall(store, () =>
        readDigest(store.client, config.table, {
          since,
          until,
          nowMs,
          ...(windows === undefined ? {} : { windows }),
        }),
      );
      const out =
        values.format === 'json'
          ? printableJson(digest, 2)
          : values.format === 'html'
            ? renderDigestHtml(digest)
            : // printable escapes line breaks too: each line on its own.
              renderDigestText(digest).split('\n').map(printable).join('\n');
      println(io.stdout, out);
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
