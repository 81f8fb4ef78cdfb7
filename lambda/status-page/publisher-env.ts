/**
 * The publisher function's environment (docs/status-page.md): the store settings of the catalogue
 * (`table`, `networks`, `expectedStatus`, `rules`, `figureFields`), and the stack's wiring below. The wiring is not an operator's setting (the
 * context keys `statusPage` and `statusPageEvery` are), so it is not under the settings' prefix.
 */
import { ConfigError, collectingProblems, loadNetworksConfig, loadStoreConfig } from '../config.ts';
import { parseFigureFields } from '../core/detect/figures.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import { parseRules } from '../core/rules/rules.ts';
import { parseMaintenance } from '../core/silences/maintenance-config.ts';
import type { WindowRequest } from '../core/silences/maintenance-window.ts';
import { SETTINGS } from '../settings.ts';
import type { PageMode } from './status-document.ts';

/** The variables the stack sets on the publisher besides the catalogue's. */
export const PUBLISHER_ENV = {
  /** The page's bucket. */
  bucket: 'STATUS_PAGE_BUCKET',
  /** `private` or `public`. */
  mode: 'STATUS_PAGE_MODE',
  /** Seconds between two publishes (`statusPageEvery`). */
  everySeconds: 'STATUS_PAGE_EVERY_SECONDS',
  /**
   * `public`: the ARN of the secret holding the key of the public incident ids (`public-id.ts`), generated at
   * deploy; the key itself is never in the environment.
   */
  idSecret: 'STATUS_PAGE_ID_SECRET',
  /**
   * The page's own address, `https://<distribution>/`: the public feed's links are absolute (a chat's feed app
   * shows an entry's link as it is). Unset: the links are relative to the feed.
   */
  url: 'STATUS_PAGE_URL',
} as const;

/**
 * The report's assets as the stack bundles them beside the handler (lib/constructs/status-page-publisher.ts):
 * the bundle has no node_modules or project files to read them from.
 */
export const BUNDLED_ASSETS_FILE = 'report-assets.json';

type Env = Readonly<Record<string, string | undefined>>;

/** The publisher's configuration. */
export interface PublisherConfig {
  readonly table: string;
  readonly bucket: string;
  readonly mode: PageMode;
  readonly everySeconds: number;
  /** `public`: the secret holding the public id key ({@link PUBLISHER_ENV.idSecret}). */
  readonly idSecret?: string;
  /** The page's address ({@link PUBLISHER_ENV.url}), when the stack gave it. */
  readonly url?: string;
  readonly networks: readonly string[];
  readonly expected?: string;
  readonly rules?: readonly Rule[];
  readonly figureFields?: readonly string[];
  /** The maintenance windows declared in context (the `maintenance` setting), as the stack checked them. */
  readonly maintenance?: readonly WindowRequest[];
}

/** Reads the publisher's environment; every problem at once in one {@link ConfigError}. */
export function loadPublisherConfig(env: Env): PublisherConfig {
  const problems: string[] = [];
  const attempt = collectingProblems(problems);
  const store = attempt(() => loadStoreConfig(env));
  const networks = attempt(() => loadNetworksConfig(env)) ?? [];
  const bucket = env[PUBLISHER_ENV.bucket]?.trim() ?? '';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(`${PUBLISHER_ENV.bucket} must name an S3 bucket, got ${JSON.stringify(bucket)}`);
  }
  const mode = env[PUBLISHER_ENV.mode];
  if (mode !== 'private' && mode !== 'public') {
    problems.push(`${PUBLISHER_ENV.mode} must be private or public, got ${JSON.stringify(mode ?? '')}`);
  }
  const every = Number(env[PUBLISHER_ENV.everySeconds] ?? '300');
  if (!Number.isInteger(every) || every < 60) {
    problems.push(`${PUBLISHER_ENV.everySeconds} must be a whole number of seconds, at least 60`);
  }
  const idSecret = env[PUBLISHER_ENV.idSecret]?.trim() ?? '';
  if (mode === 'public' && idSecret === '') {
    problems.push(`${PUBLISHER_ENV.idSecret} must name the secret of the public incident ids`);
  }
  const url = env[PUBLISHER_ENV.url]?.trim() ?? '';
  if (url !== '' && !/^https:\/\/[A-Za-z0-9.-]+\/$/.test(url)) {
    problems.push(
      `${PUBLISHER_ENV.url} must be the page's https://host/ address, got ${JSON.stringify(url)}`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const expected = env[SETTINGS.expectedStatus.env];
  // The stack checked the rules and the fields against its context; what reads cleanly is drawn.
  const rules = parseRules(env[SETTINGS.rules.env] ?? '').rules;
  const fields = parseFigureFields(env[SETTINGS.figureFields.env] ?? '');
  const declared = parseMaintenance(env[SETTINGS.maintenance.env] ?? '', Date.now(), false);
  const maintenance = declared.ok ? declared.requests : [];
  return {
    table: store!.table,
    bucket,
    mode: mode as PageMode,
    everySeconds: every,
    ...(idSecret === '' ? {} : { idSecret }),
    ...(url === '' ? {} : { url }),
    networks,
    ...(expected === undefined || expected === '' ? {} : { expected }),
    ...(rules.length === 0 ? {} : { rules }),
    ...(fields.ok && fields.fields.length > 0 ? { figureFields: fields.fields } : {}),
    ...(maintenance.length === 0 ? {} : { maintenance }),
  };
}
