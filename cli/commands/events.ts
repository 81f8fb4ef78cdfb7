import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { EVENT_NAMES, parseChoice, timeWindow } from '../args.ts';
import { renderEvents, toEventEntry } from '../entries.ts';
import { parseFormat, UsageError } from '../format.ts';
import { type CliIo, type Command, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

export const eventsCommand: Command = {
  name: 'events',
  summary: 'print filter status transitions (--all: every alert event), oldest first',
  help: [
    'Usage: shieldwatch events [--since 24h|7d|ISO] [--until ...] [--limit N] [--all | --event NAME]',
    '                          [--format table|json|csv]',
    '',
    'Prints the filter status transitions (filter.status_changed) kept in the store, oldest first.',
    "With --all, also the other alert events: the incidents about the monitor's view of the API",
    '(api.auth_failed, api.unreachable, filter.status_unreadable and their recoveries) and the',
    'reminders (filter.status_reminder). Events never expire. An alert a silence suppressed is listed',
    'with the silence id (shieldwatch silence): it was recorded, never sent.',
    '',
    'Options:',
    '  --since WHEN      from WHEN: a duration back from now (90s, 30m, 24h, 7d, 2w) or an ISO date',
    '  --until WHEN      up to WHEN (same forms)',
    '  --limit N         only the most recent N (still printed oldest first)',
    '  --all             every alert event, not only the status transitions',
    '  --event NAME      only events of this name, e.g. api.unreachable',
    '  --format FORMAT   table (default), json (an array of {at, event, from?, to?, detail?,',
    '                    suppressedBy?}) or csv',
    '  -h, --help        show this help',
  ].join('\n'),
  options: {
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
    event: { type: 'string' },
    all: { type: 'boolean' },
    format: { type: 'string' },
  },
  async run(values, io: CliIo) {
    const format = parseFormat(typeof values['format'] === 'string' ? values['format'] : undefined);
    const query = timeWindow(values, io.now());
    const named = typeof values['event'] === 'string' ? values['event'] : undefined;
    if (named !== undefined && values['all'] === true)
      throw new UsageError('give --all or --event NAME, not both');
    if (named !== undefined) parseChoice('--event', named, EVENT_NAMES);
    // README, CLI: `events` lists the status transitions; the other alert events on request.
    const only = values['all'] === true ? undefined : (named ?? 'filter.status_changed');
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const all = await storeCall(store, () =>
        new DynamoStore(store.client, config.table).queryEvents(
          only === undefined ? query : { ...query, limit: undefined },
        ),
      );
      const picked =
        only === undefined
          ? all
          : all.filter((e) => e.event === only).slice(-(query.limit ?? Number.MAX_SAFE_INTEGER));
      println(io.stdout, renderEvents(picked.map(toEventEntry), format));
      return 0;
    } finally {
      store.client.destroy();
    }
  },
};
