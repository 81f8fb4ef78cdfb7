/**
 * `check`'s digest line (CONTRACT §19, docs/digest.md): the digest settings as the deployed digest function
 * reads them, checked the same way (`parseDigestSchedule`), with the next due time; nothing when they are unset.
 */
import { nextDue, parseDigestSchedule } from '../../lambda/core/digest/digest-schedule.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { printable } from '../format.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The line (after `  digest       `), and the problem that makes the setup unready, if any. */
export function digestLine(
  env: Env,
  nowMs: number,
): { readonly line: string; readonly problem?: string } | undefined {
  const values = {
    digest: env[SETTINGS.digest.env],
    digestAt: env[SETTINGS.digestAt.env],
    digestTz: env[SETTINGS.digestTz.env],
  };
  if (Object.values(values).every((v) => v === undefined || v.trim() === '')) return undefined;
  const parsed = parseDigestSchedule(values, {
    digest: SETTINGS.digest.env,
    digestAt: SETTINGS.digestAt.env,
    digestTz: SETTINGS.digestTz.env,
  });
  if (!parsed.ok) {
    return { line: parsed.problems.map(printable).join('; '), problem: 'the digest settings are invalid' };
  }
  const s = parsed.schedule;
  if (s === undefined) return { line: 'off' };
  const at = `${String(s.hour).padStart(2, '0')}:${String(s.minute).padStart(2, '0')}`;
  return {
    line: `${s.every}${s.every === 'weekly' ? ' (Mondays)' : ''} at ${at} ${s.tz}, next due ${nextDue(s, nowMs)} (published by the deployed stack)`,
  };
}
