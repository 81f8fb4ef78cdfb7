import { loadStoreConfig } from '../../lambda/config.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { defineCommand, formatOption } from '../args.ts';
import { printable, printableJson } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { declaredWindows, gatherStatus } from '../status/gather.ts';
import { renderText } from '../status/render.ts';
import { openStore } from '../store/open.ts';

export { monitorNetworks, type StatusInput, statusReport } from '../status/report.ts';
export type { LastObservation, RuleItemView, Standing, StatusReport } from '../status/report-types.ts';

/** `--networks A,B`, or undefined when not given. */
function networksOption(networks: string | undefined): string[] | undefined {
  if (networks === undefined) return undefined;
  return [
    ...new Set(
      networks
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
}

export const statusCommand = defineCommand({
  name: 'status',
  description: [
    'Reads the store only (no API request) and shows the monitor as its own cycles left it:',
    '  - the confirmed filter status and since when; against SHIELDWATCH_EXPECTED_STATUS, when set, it is',
    '    labelled (expected) in green or (AWAY from expected ...) in red, away with its incident id, stage',
    '    and acknowledgement; a status seen but not yet confirmed; the last filter snapshot and its age;',
    '  - the networks the monitor polled, as its last cycle recorded them (not SHIELDWATCH_NETWORKS of',
    '    this terminal), each with its last figures (or error) and their age; the first 50 in the table;',
    '  - the rules in force, as the monitor last applied them;',
    "  - the open incidents: the API's (key rejected, unreachable, status unreadable: open with its id and",
    '    acknowledgement, or counting); each of a rule across networks (SHIELDWATCH_GROUP_BY=rule: id, rule,',
    '    since when, acknowledged, its networks with their peaks); each blind spot (a network whose requests',
    '    keep failing, with how; a rule whose path reads nothing), acknowledged or not; each of a rule',
    "    not grouped (rule, network, since when, the value the rule reads in its network's newest snapshot);",
    '  - the silences: each active one with its pattern, end, time left and reason (matching alerts are',
    '    recorded, not sent), and those set to start later;',
    "  - pending alerts: every outbox (the monitor's, each rule item's, each incident's and each shard's",
    '    health item), decided but not yet published.',
    'Colour only on a terminal, never with NO_COLOR set; every colour has a label too.',
  ].join('\n'),
  options: {
    networks: {
      type: 'string',
      value: 'A,B',
      description: "show these networks instead of the monitor's own",
    },
    format: formatOption('json is the same, every recorded network listed'),
  },
  examples: [
    'status',
    'status --networks edge-1,edge-2',
    'status --format json',
    'status --stack Shieldwatch',
  ],
  notes: [
    'Needs only the store settings (SHIELDWATCH_TABLE, AWS settings or the embedded store); reads',
    `${SETTINGS.maintenance.env} when set (its windows shown beside the stored silences and windows).`,
    `Exit codes: 0 shown; 1 the store could not be read (or this directory has none); 2 bad usage or a bad ${SETTINGS.maintenance.env}.`,
  ].join('\n'),
  async run(values, io: CliIo) {
    const rawExpected = io.env[SETTINGS.expectedStatus.env];
    // Compared exactly, as the monitor does: not trimmed; only blank means unset.
    const expected = rawExpected !== undefined && rawExpected.trim() !== '' ? rawExpected : undefined;
    const maintenance = declaredWindows(io.env, io.now());
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const report = await gatherStatus(store, {
        table: config.table,
        given: networksOption(values.networks),
        format: values.format,
        expected,
        nowMs: io.now,
        maintenance,
      });
      // Which store this is (a deployed stack's table, the embedded one): the answer depends on it.
      println(
        io.stdout,
        values.format === 'json'
          ? printableJson({ ...report, store: store.description }, 2)
          : `${renderText(report, io)}\nstore          ${printable(store.description)}`,
      );
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
