/**
 * `check`'s expected-status section: SHIELDWATCH_EXPECTED_STATUS against the status the API reports now and
 * the statuses the store recorded (its newest filter snapshots), so that `Active` against an API that says
 * `active` is caught before the first cycle opens an incident that never closes.
 */
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import type { MonitorConfig } from '../../lambda/config.ts';
import { type ExpectedStatusVerdict, judgeExpectedStatus } from '../../lambda/core/detect/expected-status.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { clip, printable } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { defaultStoreDir, embeddedStoreExists } from '../store/embedded.ts';
import { hasAwsConfiguration, openStore } from '../store/open.ts';

/** The newest filter snapshots read for the statuses seen: about 16 hours of a cycle a minute. */
const HISTORY_SNAPSHOTS = 1000;
/** Longest the history read may take; `check` is about the API, the history only adds to it. */
const HISTORY_TIMEOUT_MS = 5_000;

/** The statuses recorded in the store (most frequent first), or why none were read. */
export type StoredStatuses =
  | { readonly ok: true; readonly statuses: readonly string[]; readonly snapshots: number }
  | { readonly ok: false; readonly why: string };

/**
 * The distinct statuses of the store's newest filter snapshots. Never creates an embedded store: in a
 * directory without one there is no history to read.
 */
export async function storedStatuses(io: CliIo, config: MonitorConfig): Promise<StoredStatuses> {
  if (!hasAwsConfiguration(io.env) && !(await embeddedStoreExists(defaultStoreDir()))) {
    return { ok: false, why: 'no store in this directory' };
  }
  let timer: NodeJS.Timeout | undefined;
  let destroy = () => {};
  const read = (async (): Promise<StoredStatuses> => {
    const store = await openStore(io.env, config.table, { readOnly: true });
    destroy = () => store.client.destroy();
    const snapshots = await new DynamoStore(store.client, config.table).querySnapshots(
      { kind: 'filter' },
      { limit: HISTORY_SNAPSHOTS },
    );
    const counts = new Map<string, number>();
    for (const s of snapshots) {
      if (s.status !== undefined) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
    }
    const statuses = [...counts].sort((a, b) => b[1] - a[1]).map(([status]) => status);
    return { ok: true, statuses, snapshots: snapshots.length };
  })();
  try {
    return await Promise.race([
      read,
      new Promise<StoredStatuses>((resolve) => {
        timer = setTimeout(
          () => resolve({ ok: false, why: `the store did not answer in ${HISTORY_TIMEOUT_MS / 1000} s` }),
          HISTORY_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    return { ok: false, why: `the store could not be read (${clip((error as Error).message, 160)})` };
  } finally {
    clearTimeout(timer);
    destroy();
    read.catch(() => undefined);
  }
}

const quote = (status: string) => clip(printable(JSON.stringify(status)), 60);

/** What the verdict means to an operator, and whether it makes the setup unready. */
export function expectedStatusLine(
  expected: string,
  verdict: ExpectedStatusVerdict,
  history: StoredStatuses,
): { level: 'ok' | 'warn' | 'fail'; text: string; problem?: string; warning?: string } {
  const name = SETTINGS.expectedStatus.env;
  const seen = history.ok && history.statuses.length > 0 ? history.statuses.map(quote).join(', ') : undefined;
  const where = history.ok
    ? `the store's last ${history.snapshots} filter snapshot(s)${seen === undefined ? ' (no status among them)' : ` (${seen})`}`
    : `no stored history (${history.why})`;
  switch (verdict.kind) {
    case 'now':
      return { level: 'ok', text: `${quote(expected)}: the status now` };
    case 'seen':
      if (verdict.now === undefined) {
        return { level: 'ok', text: `${quote(expected)}: reported before (no status could be read now)` };
      }
      return {
        level: 'warn',
        text:
          `${quote(expected)} is not the status now (${quote(verdict.now)}), though it was reported before: ` +
          'the first cycle finds the status away from expected (an incident, severity high)',
        warning: `the status now is away from ${name}`,
      };
    case 'differs': {
      const how = verdict.how === 'near' ? 'is probably a typo of' : `differs only in ${verdict.how} from`;
      const whose = verdict.now ? 'the status the API reports now' : 'a status reported before';
      return {
        level: 'fail',
        text:
          `${quote(expected)} ${how} ${quote(verdict.status)}, ${whose}. Statuses are compared exactly: ` +
          `the status would stay away from expected for good. Set ${name}=${printable(verdict.status)}` +
          (verdict.how === 'near' ? ' if that is the one meant' : ''),
        problem: `${name} ${quote(expected)} ${verdict.how === 'near' ? 'looks like a typo of' : `differs only in ${verdict.how} from`} ${quote(verdict.status)}`,
      };
    }
    case 'never':
      return {
        level: 'warn',
        text:
          `${quote(expected)} was never reported: not now${verdict.now === undefined ? '' : ` (${quote(verdict.now)})`}, ` +
          `nor in ${where}. Until the API reports it, the monitor counts the status as away (an incident, ` +
          'severity high, from the first cycle)',
        warning: `${name} ${quote(expected)} was never reported`,
      };
  }
}

/**
 * Prints the expected-status section. Returns the problem (not ready) or the warning (ready, but the first
 * cycle will say the status is away) it found, if any.
 */
export async function printExpectedStatus(
  io: CliIo,
  config: MonitorConfig,
  now: string | undefined,
  mark: { ok: string; warn: string; fail: string },
): Promise<{ problem?: string; warning?: string }> {
  const expected = config.expectedStatus;
  if (expected === undefined) {
    println(
      io.stdout,
      `expected       (${SETTINGS.expectedStatus.env} not set: a status change is told, none is good or bad)`,
    );
    return {};
  }
  // Reading the history costs a store round trip: only when the status now is not the expected one.
  const history: StoredStatuses =
    now === expected ? { ok: false, why: 'not read' } : await storedStatuses(io, config);
  const verdict = judgeExpectedStatus(expected, now, history.ok ? history.statuses : []);
  const line = expectedStatusLine(expected, verdict, history);
  println(io.stdout, `expected       ${mark[line.level]} ${line.text}`);
  return {
    ...(line.problem === undefined ? {} : { problem: line.problem }),
    ...(line.warning === undefined ? {} : { warning: line.warning }),
  };
}
