/**
 * The CLI's settings file: `./shieldwatch.env` when present, or the file named by `--env-file` or
 * `SHIELDWATCH_ENV_FILE`, read with Node's own env-file parser (`util.parseEnv`: `NAME=value` lines,
 * `#` comments, quotes, `export` prefixes). Variables already in the environment win over the file.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { SETTING_PREFIX, SETTINGS } from '../lambda/settings.ts';
import { UsageError } from './format.ts';

/** The file read when neither `--env-file` nor `SHIELDWATCH_ENV_FILE` names one. */
export const DEFAULT_ENV_FILE = 'shieldwatch.env';

type Env = Readonly<Record<string, string | undefined>>;

/** What the settings file gave. */
export interface EnvFile {
  /** The file read, or undefined when there was none to read. */
  readonly path?: string;
  /** Its variables, as written. */
  readonly values: Readonly<Record<string, string>>;
  /** Things worth telling the user about the file, one line each. */
  readonly warnings: readonly string[];
}

/**
 * Reads the settings file. `explicit` is the `--env-file` value; without it `SHIELDWATCH_ENV_FILE`, then
 * `./shieldwatch.env` in `cwd`. A file that was named but cannot be read is a {@link UsageError} (exit 2);
 * the default file is simply skipped when it does not exist.
 */
export function readEnvFile(explicit: string | undefined, env: Env, cwd: string): EnvFile {
  const fromEnv = env[SETTINGS.envFile.env]?.trim();
  const named = explicit ?? (fromEnv === '' ? undefined : fromEnv);
  const source = explicit !== undefined ? '--env-file' : SETTINGS.envFile.env;
  const file = path.resolve(cwd, named ?? DEFAULT_ENV_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (named === undefined && code === 'ENOENT') return { values: {}, warnings: [] };
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (code ?? 'cannot be read');
    throw new UsageError(`${named === undefined ? file : source} ${JSON.stringify(file)}: ${why}`);
  }
  const values = Object.fromEntries(
    Object.entries(parseEnv(text)).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const warnings: string[] = [];
  const keyInFile = (values[SETTINGS.apiKey.env] ?? '') !== '';
  if (keyInFile && process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    warnings.push(
      `${file} holds ${SETTINGS.apiKey.env} and other users can read it: run chmod 600 ${JSON.stringify(file)}`,
    );
  }
  return { path: file, values, warnings };
}

/**
 * The environment a command sees: the file's variables under the real environment's (which win).
 * When the real environment is `process.env`, the file's other variables (`AWS_PROFILE`, `AWS_REGION`, ...)
 * are added to it too where unset, so the AWS SDK's own lookups see them; `SHIELDWATCH_*` values, the key
 * among them, stay out of `process.env` and so out of any child process.
 */
export function withEnvFile(
  env: Readonly<Record<string, string | undefined>>,
  file: EnvFile,
): Record<string, string | undefined> {
  if (env === process.env) {
    for (const [name, value] of Object.entries(file.values)) {
      if (!name.toUpperCase().startsWith(SETTING_PREFIX) && process.env[name] === undefined) {
        process.env[name] = value;
      }
    }
  }
  return { ...file.values, ...env };
}
