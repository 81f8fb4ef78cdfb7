import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { ALERT_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import { patternMatches } from '../../lambda/core/silences/silence-window.ts';
import { defineCommand, EVENT_NAMES, parseChoice, timeWindow, WINDOW_OPTIONS } from '../args.ts';
import { renderEvents, toEventEntry } from '../entries.ts';
import { UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/**
 * The events `--event PATTERN` selects: an exact event name (a typo gets the nearest name), or a glob with
 * `*` (any run of characters, dots included) that matches at least one event, as `silence --event` takes.
 */
export function eventFilter(pattern: string): (event: string) => boolean {
  if (!pattern.includes('*')) {
    const name = parseChoice('--event', pattern, EVENT_NAMES);
    return (event) => event === name;
  }
  if (!/^[a-z0-9._*]+$/.test(pattern) || !ALERT_EVENTS.some((event) => patternMatches(pattern, event))) {
    const families = [...new Set(ALERT_EVENTS.map((event) => `${event.split('.')[0]}.*`))];
    throw new UsageError(
      `--event: the pattern ${JSON.stringify(pattern)} matches no event; families: ${families.join(', ')}; ` +
        `events: ${ALERT_EVENTS.join(', ')}`,
    );
  }
  return (event) => patternMatches(pattern, event);
}

export const eventsCommand = defineCommand({
  name: 'events',
  usage: [
    'events [--since 24h|7d|ISO] [--until ...] [--limit N] [--event PATTERN] [--format table|json|csv]',
  ],
  description: [
    'Prints every alert event kept in the store, oldest first: filter status changes and reminders, the',
    "incidents about the monitor's view of the API (api.*, filter.status_unreadable), rule and network",
    'alerts (network.*), silence announcements (silence.*) and delivery checks (monitor.test). Events never',
    'expire. An alert a silence suppressed is listed with the silence id (shieldwatch silence): it was',
    'recorded, never sent.',
  ].join('\n'),
  options: {
    ...WINDOW_OPTIONS,
    event: {
      type: 'string',
      value: 'PATTERN',
      description:
        'only these events: a name (filter.status_changed) or a family with * (filter.*, api.*, network.*, network.rule_*, silence.*, monitor.*), as silence --event',
    },
    all: { type: 'boolean', description: 'accepted for older scripts: every event is shown by default' },
    format: {
      type: 'string',
      value: 'FORMAT',
      choices: ['table', 'json', 'csv'],
      default: 'table',
      description:
        'json is an array of {at, event, from?, to?, detail?, suppressedBy?, rule?, network?, value?}',
    },
  },
  examples: [
    'events --since 24h',
    "events --event 'network.*' --since 7d",
    'events --limit 20 --format json',
  ],
  async run(values, io: CliIo) {
    const format = values.format;
    const query = timeWindow(values, io.now());
    const pattern = values.event;
    // README.md, Commands: `events` lists every event; `--event` narrows it. `--all` is what the default now is.
    const keep = pattern === undefined ? undefined : eventFilter(pattern);
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const all = await storeCall(store, () =>
        new DynamoStore(store.client, config.table).queryEvents(
          keep === undefined ? query : { ...query, limit: undefined },
        ),
      );
      const picked =
        keep === undefined
          ? all
          : all.filter((e) => keep(e.event)).slice(-(query.limit ?? Number.MAX_SAFE_INTEGER));
      println(io.stdout, renderEvents(picked.map(toEventEntry), format));
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
