#!/usr/bin/env node
// Builds the CLI into plain JavaScript (dist/cli/), so `shieldwatch` starts without compiling TypeScript:
// `npm ci` runs it (the `prepare` script) and `npm test` runs it first. bin/shieldwatch.mjs runs the build
// when the manifest says it is up to date and the TypeScript sources otherwise (CONTRIBUTING.md, The build).
//
// - One bundle with code splitting: cli/main.ts and what every command needs at start; each command (and the
//   AWS SDK it imports) in chunks loaded only when it runs (cli/registry.ts imports them lazily).
// - Every output file is named by its content hash and written once (temporary file, then rename), and the
//   manifest naming the entry is renamed into place last: a CLI that is running while another build runs
//   (tests in parallel, an engineer building) never reads a half-written or changed file.
// - The manifest lists every project input (path, size, mtime) from esbuild's metafile, and this script and
//   package-lock.json (the bundled packages), so the bin can tell in a few stat calls whether a source
//   changed since.
// - `import.meta.url` in a project source is replaced by that source's own URL (relative to the output
//   file), so files it reads beside itself (cli/store/server.mjs, report assets, package.json) are found
//   where they are in the tree.
//
// Usage: node scripts/build-cli.mjs [--quiet]

import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT_DIR = path.join(ROOT, 'dist', 'cli');
/** The manifest bin/shieldwatch.mjs reads. */
const MANIFEST = path.join(OUT_DIR, 'manifest.json');
/** Files of older builds are removed once they are this old (a CLI started before then may still load them). */
const KEEP_OLD_MS = 60 * 60 * 1000;
const quiet = process.argv.includes('--quiet');

/** Replaces `import.meta.url` in project sources with the source file's own URL. */
const sourceUrls = {
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mjs|js)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      // Every output file sits directly in dist/cli/, so the source is this relative path away from it.
      const relative = path.relative(OUT_DIR, args.path).split(path.sep).join('/');
      return {
        contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
        loader: args.path.endsWith('.ts') ? 'ts' : 'js',
      };
    });
  },
};

// esbuild is a devDependency: after `npm ci --omit=dev` there is none, and the bin runs the sources (tsx is a
// dependency) instead of failing the install.
let build;
try {
  ({ build } = await import('esbuild'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  console.log('esbuild is not installed (npm ci --omit=dev?): no build; shieldwatch runs its TypeScript sources');
  process.exit(0);
}

const started = Date.now();
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { main: 'cli/main.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  outdir: OUT_DIR,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  // Prefer the packages' ESM builds: smaller bundles, faster imports.
  mainFields: ['module', 'main'],
  // Bundled CommonJS code asks for Node's built-in modules with require(), which ESM output lacks.
  banner: {
    js: "import { createRequire as __shieldwatchCreateRequire } from 'node:module'; const require = __shieldwatchCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  // Less to compile at each start (about 10 ms of a status' 170 here); `node --enable-source-maps` maps a
  // stack trace back to the sources.
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
  plugins: [sourceUrls],
});

mkdirSync(OUT_DIR, { recursive: true });
const written = new Set();
let entry;
for (const file of result.outputFiles) {
  const name = path.basename(file.path);
  written.add(name);
  const output = result.metafile.outputs[path.relative(ROOT, file.path).split(path.sep).join('/')];
  if (output?.entryPoint === 'cli/main.ts') entry = name;
  // Same name, same content: a file already there is left alone (a running CLI may be reading it).
  try {
    statSync(file.path);
    continue;
  } catch {}
  const temporary = `${file.path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
if (entry === undefined) throw new Error('the build produced no entry for cli/main.ts');

/** A project file as the manifest records it. */
function record(relative) {
  const stat = statSync(path.join(ROOT, relative));
  return [relative, stat.size, stat.mtimeMs];
}
const inputs = Object.keys(result.metafile.inputs)
  // Packages change only with package-lock.json, listed below; a linked node_modules shows as ../…/node_modules.
  .filter((input) => !input.split('/').includes('node_modules') && !input.includes(':'))
  .sort();
const manifest = {
  entry,
  builtAt: new Date().toISOString(),
  inputs: [...inputs, 'scripts/build-cli.mjs', 'package-lock.json'].map(record),
};
const temporary = `${MANIFEST}.${randomBytes(4).toString('hex')}.tmp`;
writeFileSync(temporary, `${JSON.stringify(manifest)}\n`);
renameSync(temporary, MANIFEST);

// Older builds' files, once no CLI started before them can still be loading them.
for (const name of readdirSync(OUT_DIR)) {
  if (written.has(name) || name === 'manifest.json') continue;
  const file = path.join(OUT_DIR, name);
  try {
    if (Date.now() - statSync(file).mtimeMs > KEEP_OLD_MS) unlinkSync(file);
  } catch {}
}

if (!quiet) {
  const code = result.outputFiles.filter((f) => f.path.endsWith('.js'));
  const bytes = code.reduce((sum, f) => sum + f.contents.length, 0);
  console.log(
    `built dist/cli/${entry}: ${code.length} files, ${Math.round(bytes / 1024)} KB, ` +
      `${inputs.length} sources, ${Date.now() - started} ms`,
  );
}
