/**
 * Every command of the CLI, as the main `--help` lists them: name, group, one-line summary, whether it takes
 * `--stack`, and how to load it. Deliberately light: a command's code (and the AWS SDK it uses) is imported
 * only when that command runs or shows its own help, so `shieldwatch --help` and `--version` load none.
 */
import type { Command } from './io.ts';

/** The groups of the main help, in their order. */
export const COMMAND_GROUPS = [
  { id: 'first-steps', title: 'First steps' },
  { id: 'watching', title: 'Watching' },
  { id: 'history', title: 'History' },
  { id: 'alerting', title: 'Alerting' },
  { id: 'local', title: 'Local' },
] as const;

/** A group of the main help. */
export type CommandGroup = (typeof COMMAND_GROUPS)[number]['id'];

/** One command in the registry. */
export interface CommandEntry {
  readonly name: string;
  readonly group: CommandGroup;
  /** Its line in the main help. */
  readonly summary: string;
  /**
   * It reads or writes the history (or the topic): it takes `--stack NAME` (docs/deploy.md, The CLI and the deployed stack), and
   * so do its subcommands. @default false
   */
  readonly stack?: boolean;
  /** Imports the command's module. */
  load(): Promise<Command>;
}

/** The commands, in the order of the main help within each group (`check` first of all). */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'check',
    group: 'first-steps',
    summary: 'check the configuration and the API: who owns the key, where the status is, each network once',
    load: async () => (await import('./commands/check.ts')).checkCommand,
  },
  {
    name: 'demo',
    group: 'first-steps',
    summary:
      'the whole job on this machine in about 30 s: simulator, monitor, alerts, history, chart (npm start)',
    load: async () => (await import('./commands/demo.ts')).demoCommand,
  },
  {
    name: 'set-key',
    group: 'first-steps',
    summary: "put the API key (read from standard input) into the stack's secret, then run check",
    load: async () => {
      // set-key runs check with the key it stored; commands do not import each other.
      const [{ setKeyCommand }, { checkCommand }] = await Promise.all([
        import('./commands/set-key.ts'),
        import('./commands/check.ts'),
      ]);
      return setKeyCommand(checkCommand);
    },
  },
  {
    name: 'status',
    group: 'watching',
    stack: true,
    summary:
      'the monitor at a glance, from the store: filter status and since when, networks, incidents, outbox',
    load: async () => (await import('./commands/status.ts')).statusCommand,
  },
  {
    name: 'page-link',
    group: 'watching',
    summary: 'print a signed link to the deployed private status page, valid for a while',
    load: async () => (await import('./commands/page-link.ts')).pageLinkCommand,
  },
  {
    name: 'poll',
    group: 'watching',
    stack: true,
    summary: 'run one poll cycle: poll, store, detect, alert; print a short summary',
    load: async () => (await import('./commands/poll.ts')).pollCommand,
  },
  {
    name: 'run',
    group: 'watching',
    stack: true,
    summary: 'monitor continuously on this machine: one cycle every interval, until Ctrl-C',
    load: async () => (await import('./commands/run.ts')).runCommand,
  },
  {
    name: 'incidents',
    group: 'history',
    stack: true,
    summary:
      'list the incidents (one per rule and attack across networks) or show one: members, peaks, timeline',
    load: async () => (await import('./commands/incidents.ts')).incidentsCommand,
  },
  {
    name: 'events',
    group: 'history',
    stack: true,
    summary:
      'print every alert event (status changes, incidents, rule alerts, suppressed ones), oldest first',
    load: async () => (await import('./commands/events.ts')).eventsCommand,
  },
  {
    name: 'history',
    group: 'history',
    stack: true,
    summary: 'print stored snapshots of the filter or of one network',
    load: async () => (await import('./commands/history.ts')).historyCommand,
  },
  {
    name: 'uptime',
    group: 'history',
    stack: true,
    summary: 'time-weighted share of each filter status and the API availability, from the history',
    load: async () => (await import('./commands/uptime.ts')).uptimeCommand,
  },
  {
    name: 'digest',
    group: 'history',
    stack: true,
    summary:
      'the period at a glance: incidents per kind and rule, worst peaks, response times, statuses, availability',
    load: async () => (await import('./commands/digest.ts')).digestCommand,
  },
  {
    name: 'report',
    group: 'history',
    stack: true,
    summary: 'write a self-contained HTML report: now, incidents, status band, uptime, charts, events',
    load: async () => (await import('./commands/report.ts')).reportCommand,
  },
  {
    name: 'backtest',
    group: 'alerting',
    stack: true,
    summary: 'replay stored network snapshots through the traffic rules: the alerts they would have sent',
    load: async () => (await import('./commands/backtest.ts')).backtestCommand,
  },
  {
    name: 'silence',
    group: 'alerting',
    stack: true,
    summary: 'silence alerts for planned work (silence --for 2h; silence list; silence end ID)',
    load: async () => (await import('./commands/silence.ts')).silenceCommand,
  },
  {
    name: 'ack',
    group: 'alerting',
    stack: true,
    summary: 'acknowledge an open incident: no more reminders or escalations (ack ID [--note TEXT])',
    load: async () => (await import('./commands/ack.ts')).ackCommand,
  },
  {
    name: 'unack',
    group: 'alerting',
    stack: true,
    summary: 'withdraw the acknowledgement of an incident: reminders and escalations apply again',
    load: async () => (await import('./commands/ack.ts')).unackCommand,
  },
  {
    name: 'test-alert',
    group: 'alerting',
    stack: true,
    summary: 'publish a clearly labelled test notification (event monitor.test) to check email/SMS delivery',
    load: async () => (await import('./commands/test-alert.ts')).testAlertCommand,
  },
  {
    name: 'store',
    group: 'local',
    summary: "where the history is kept: the store's location, endpoint and how to query it with the AWS CLI",
    load: async () => (await import('./commands/store.ts')).storeCommand,
  },
  {
    name: 'simulate',
    group: 'local',
    summary: 'run a simulator of the protection API on 127.0.0.1 (scenarios, body shapes, faults)',
    load: async () => (await import('./commands/simulate.ts')).simulateCommand,
  },
];
