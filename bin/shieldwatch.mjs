#!/usr/bin/env -S node --
// `--` ends Node's own options: Node 20 would otherwise take our `--env-file FILE` for its own and exit.
//
// Runs the built CLI (dist/cli/, made by scripts/build-cli.mjs on `npm ci` and `npm test`) when it is up to
// date, so a command starts without compiling TypeScript; otherwise the TypeScript sources through tsx, so an
// edited source always runs as it is now and `npx shieldwatch` works even without a build. "Up to date": every
// input the manifest lists (each source bundled, the build script, package-lock.json) still has the size and
// mtime it had at the build, a stat per file (about 0.2 ms for all of them). `NODE_DEBUG=shieldwatch` says
// which one runs and why.
import { readFileSync, statSync } from 'node:fs';
import { debuglog } from 'node:util';

// The AWS SDK's Node 20 notice is for developers of the SDK's users, not for operators reading our output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const debug = debuglog('shieldwatch');
const root = new URL('../', import.meta.url);

/** The built entry when the build is up to date, else why not. */
function built() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(new URL('dist/cli/manifest.json', root), 'utf8'));
  } catch {
    return { why: 'no build (npm run build makes one)' };
  }
  for (const [file, size, mtimeMs] of manifest.inputs) {
    let stat;
    try {
      stat = statSync(new URL(file, root));
    } catch {
      return { why: `${file} is gone since the build` };
    }
    if (stat.size !== size || stat.mtimeMs !== mtimeMs) return { why: `${file} changed since the build` };
  }
  return { entry: new URL(`dist/cli/${manifest.entry}`, root) };
}

const { entry, why } = built();
let main;
if (entry !== undefined) {
  debug('running the build %s', entry.pathname);
  ({ main } = await import(entry.href));
} else {
  debug('running the TypeScript sources: %s', why);
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
