/**
 * The digest function's environment (CONTRACT §19, docs/digest.md): the catalogue's settings it reads (`table`,
 * `topicArn`, `monitorName`, `digest`, `digestAt`, `digestTz`, `maintenance`) and the stack's wiring below,
 * which is not an operator's setting (the context key `statusPage` is), so it is not under the settings' prefix.
 */
import { ConfigError, collectingProblems, loadAlertConfig, loadStoreConfig } from '../config.ts';
import { type DigestSchedule, parseDigestSchedule } from '../core/digest/digest-schedule.ts';
import { parseMaintenance } from '../core/silences/maintenance-config.ts';
import type { WindowRequest } from '../core/silences/maintenance-window.ts';
import { SETTINGS } from '../settings.ts';

/** The variables the stack sets on the digest function besides the catalogue's. */
export const DIGEST_ENV = {
  /** The hosted page's address (`https://<distribution>/`), when the stack has one. */
  pageUrl: 'DIGEST_PAGE_URL',
  /** `private` or `public`: how the email tells to open the page. */
  pageMode: 'DIGEST_PAGE_MODE',
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** The digest function's configuration. */
export interface DigestConfig {
  readonly table: string;
  readonly topicArn: string;
  readonly monitorName: string;
  /** Undefined: `digest` is off (the function then sends nothing). */
  readonly schedule: DigestSchedule | undefined;
  readonly page?: { readonly url: string; readonly mode: 'private' | 'public' };
  /** The maintenance windows declared in context, as the stack checked them. */
  readonly maintenance?: readonly WindowRequest[];
}

/** Reads the digest function's environment; every problem at once in one {@link ConfigError}. */
export function loadDigestConfig(env: Env): DigestConfig {
  const problems: string[] = [];
  const attempt = collectingProblems(problems);
  const store = attempt(() => loadStoreConfig(env));
  const alerts = attempt(() => loadAlertConfig(env));
  if (alerts !== undefined && alerts.topicArn === undefined) {
    problems.push(`${SETTINGS.topicArn.env} must name the alert topic the digest is published to`);
  }
  const parsed = parseDigestSchedule(
    {
      digest: env[SETTINGS.digest.env],
      digestAt: env[SETTINGS.digestAt.env],
      digestTz: env[SETTINGS.digestTz.env],
    },
    { digest: SETTINGS.digest.env, digestAt: SETTINGS.digestAt.env, digestTz: SETTINGS.digestTz.env },
  );
  if (!parsed.ok) problems.push(...parsed.problems);
  const pageUrl = env[DIGEST_ENV.pageUrl]?.trim() ?? '';
  const pageMode = env[DIGEST_ENV.pageMode]?.trim() ?? '';
  if (pageUrl !== '') {
    if (!/^https:\/\/[A-Za-z0-9.-]+\/$/.test(pageUrl)) {
      problems.push(
        `${DIGEST_ENV.pageUrl} must be the page's https://host/ address, got ${JSON.stringify(pageUrl)}`,
      );
    }
    if (pageMode !== 'private' && pageMode !== 'public') {
      problems.push(`${DIGEST_ENV.pageMode} must be private or public, got ${JSON.stringify(pageMode)}`);
    }
  }
  const declared = parseMaintenance(env[SETTINGS.maintenance.env] ?? '', Date.now(), false);
  if (!declared.ok) problems.push(...declared.problems.map((p) => `${SETTINGS.maintenance.env}: ${p}`));
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    table: store!.table,
    topicArn: alerts!.topicArn!,
    monitorName: alerts!.monitorName,
    schedule: parsed.ok ? parsed.schedule : undefined,
    ...(pageUrl === '' ? {} : { page: { url: pageUrl, mode: pageMode as 'private' | 'public' } }),
    ...(declared.ok && declared.requests.length > 0 ? { maintenance: declared.requests } : {}),
  };
}
