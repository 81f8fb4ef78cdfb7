/**
 * One store, one monitor (docs/design/cycle.md): `poll` and `run` refuse to cycle with other settings while
 * another monitor is live on the store (lambda/core/live-monitor.ts), and `run` records its own heartbeat
 * every cycle and removes it when it stops. `--take-over` goes on anyway.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DynamoHeartbeatStore } from '../lambda/adapters/monitor-heartbeat.ts';
import type { MonitorConfig } from '../lambda/config.ts';
import { formatDuration } from '../lambda/core/alerts/alert-text.ts';
import {
  type FingerprintedSetting,
  fingerprinter,
  type HeartbeatOwner,
  judgeHeartbeat,
  type LiveVerdict,
  newSalt,
} from '../lambda/core/live-monitor.ts';
import type { ApiKeyProvider } from '../lambda/ports.ts';
import { SETTINGS } from '../lambda/settings.ts';
import type { CliStore } from './store/open.ts';

/** The option that goes on although another monitor is live with other settings. */
export const TAKE_OVER_OPTION = {
  'take-over': {
    type: 'boolean',
    description:
      'cycle with these settings even though another monitor is live on the store with other ones (see "One store, one monitor")',
  },
} as const;

/** Another monitor is live on the store with other settings: the command stops with exit 2. */
export class LiveMonitorConflict extends Error {
  override readonly name = 'LiveMonitorConflict';
  readonly exitCode = 2;
}

/** How each compared setting is named to the operator. */
const SETTING_NAMES: Readonly<Record<FingerprintedSetting, string>> = {
  apiUrl: SETTINGS.apiUrl.env,
  apiKey: `the API key (${SETTINGS.apiKey.env} or the secret of ${SETTINGS.apiKeySecret.env})`,
  networks: SETTINGS.networks.env,
  statusPath: SETTINGS.statusPath.env,
  expectedStatus: SETTINGS.expectedStatus.env,
  rules: SETTINGS.rules.env,
  groupBy: SETTINGS.groupBy.env,
  groupInterval: SETTINGS.groupInterval.env,
  confirmations: SETTINGS.confirmations.env,
  alertAfter: SETTINGS.alertAfter.env,
  remindEvery: SETTINGS.remindEvery.env,
  escalateAfter: SETTINGS.escalateAfter.env,
  topicArn: SETTINGS.topicArn.env,
  monitorName: SETTINGS.monitorName.env,
};

/** Whether a heartbeat's owner still runs: a `run` on this machine whose process has gone does not. */
export function ownerAlive(owner: HeartbeatOwner): boolean {
  if (owner.kind !== 'run' || owner.host !== hostname() || owner.pid === undefined) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The refusal, naming what differs and how to go on. */
export function conflictMessage(
  verdict: Extract<LiveVerdict, { kind: 'refuse' }>,
  context: {
    readonly command: 'poll' | 'run';
    readonly store: string;
    readonly nowMs: number;
    /** A `run` that had been cycling: the other monitor went live since (it took over). */
    readonly running?: boolean;
  },
): string {
  const { heartbeat, differs } = verdict;
  const ago = formatDuration(Math.max(0, context.nowMs - Date.parse(heartbeat.at)));
  const deployed = heartbeat.owner.kind === 'lambda';
  return [
    context.running === true
      ? 'stopped: another monitor went live on this store with other settings (it took over); this run judges no more cycles with its own.'
      : 'refused: another monitor is live on this store with other settings; a cycle from here would judge its state with these (resolving its incidents, alerting on what it does not watch).',
    `  live monitor  ${heartbeat.owner.description}, last cycle ${ago} ago`,
    `  store         ${context.store}`,
    `  differs       ${differs.map((name) => SETTING_NAMES[name]).join(', ')} (compared by keyed hashes: no value is stored)`,
    'To go on, one of:',
    deployed
      ? '  - use the settings the deployed monitor uses; change them there with `npx cdk deploy` (a redeploy applies them);'
      : `  - use the settings the live monitor uses, or stop it first (Ctrl-C): then \`${context.command}\` applies your edit;`,
    `  - try these settings on another table: ${SETTINGS.table.env}=shieldwatch-trial npx shieldwatch ${context.command}`,
    `  - go on anyway${context.command === 'poll' ? ', this once' : ''}: npx shieldwatch ${context.command} --take-over`,
  ].join('\n');
}

/** The guard of one `poll` or `run`. */
export interface LiveGuard {
  /** Throws {@link LiveMonitorConflict} when another live monitor judges with other settings. */
  check(signal?: AbortSignal): Promise<void>;
  /**
   * `run`: computes its own fingerprint ahead (the key's scrypt digest: tens of ms, far more on a loaded
   * machine), so that no cycle waits for it; {@link beat} then finds it made. Never throws: a key that cannot
   * be read is the cycle's failure, told when it runs.
   */
  prepare(): Promise<void>;
  /** `run`: records this process's heartbeat (a cycle starts). */
  beat(signal?: AbortSignal): Promise<void>;
  /** `run`: removes its heartbeat (it stops); never throws. */
  stop(): Promise<void>;
}

/** The guard for `poll` (no heartbeat of its own) or `run` (`everyMs` given: its heartbeat every cycle). */
export function liveGuard(options: {
  readonly command: 'poll' | 'run';
  readonly config: MonitorConfig;
  readonly store: Pick<CliStore, 'client' | 'description'>;
  readonly keys: ApiKeyProvider;
  readonly now: () => number;
  readonly takeOver: boolean;
  readonly everyMs?: number;
}): LiveGuard {
  const heartbeats = new DynamoHeartbeatStore(options.store.client, options.config.table);
  const fingerprint = fingerprinter(options.config);
  const salt = newSalt();
  const owner: HeartbeatOwner = {
    id: randomUUID(),
    kind: 'run',
    host: hostname(),
    pid: process.pid,
    description: `run (pid ${process.pid} on ${hostname()}, every ${formatDuration(options.everyMs ?? 0)})`,
  };
  let beating = false;
  return {
    async check(signal) {
      if (options.takeOver) return;
      const heartbeat = await heartbeats.read(signal);
      if (heartbeat === undefined) return;
      // Only another monitor's heartbeat is compared: the key is read and hashed for nothing else.
      const mine =
        heartbeat.owner.id === owner.id
          ? heartbeat.fingerprint
          : await fingerprint(await options.keys.get(), heartbeat.fingerprint.salt);
      const nowMs = options.now();
      const verdict = judgeHeartbeat({
        heartbeat,
        nowMs,
        selfId: owner.id,
        alive: ownerAlive,
        fingerprintUnder: () => mine,
      });
      // A run that has written its heartbeat was live itself: the other took over since.
      const running = beating;
      if (verdict.kind === 'refuse') {
        throw new LiveMonitorConflict(
          conflictMessage(verdict, {
            command: options.command,
            store: options.store.description,
            nowMs,
            running,
          }),
        );
      }
    },
    async prepare() {
      if (options.everyMs === undefined) return;
      try {
        await fingerprint(await options.keys.get(), salt);
      } catch {
        // beat() asks again, in the cycle that then fails for it
      }
    },
    async beat(signal) {
      if (options.everyMs === undefined) return;
      const key = await options.keys.get();
      await heartbeats.write(
        {
          at: new Date(options.now()).toISOString(),
          everyMs: options.everyMs,
          owner,
          fingerprint: await fingerprint(key, salt),
        },
        signal,
      );
      beating = true;
    },
    async stop() {
      if (!beating) return;
      await heartbeats.clear(owner.id).catch(() => false);
    },
  };
}
