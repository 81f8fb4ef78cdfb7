/**
 * The built CLI (issue 21.5): scripts/build-cli.mjs bundles the CLI into dist/cli/ with a manifest of its
 * inputs; bin/shieldwatch.mjs runs that build while every input is as it was, and the TypeScript sources as
 * soon as one changed, so a test (or an engineer) never runs stale code. In a copy of the project's sources,
 * built there, so the project's own build is never touched.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from './helpers.ts';

let copy: string;

/** Runs the copy's bin with NODE_DEBUG=shieldwatch, which says what it runs and why. */
function runCopy(args: readonly string[]) {
  const run = spawnSync(process.execPath, [path.join(copy, 'bin', 'shieldwatch.mjs'), ...args], {
    cwd: copy,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      NODE_DEBUG: 'shieldwatch',
    },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Builds the copy. */
function buildCopy(): void {
  const build = spawnSync(process.execPath, [path.join(copy, 'scripts', 'build-cli.mjs')], {
    encoding: 'utf8',
  });
  expect(build.status, build.stderr).toBe(0);
}

beforeAll(() => {
  // Prepare: the sources the CLI is built from, the build script and the bin, and the installed packages.
  copy = mkdtempSync(path.join(tmpdir(), 'shieldwatch-build-'));
  for (const part of [
    'bin',
    'cli',
    'lambda',
    'scripts',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
  ]) {
    cpSync(path.join(PROJECT_ROOT, part), path.join(copy, part), { recursive: true });
  }
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  buildCopy();
}, 120_000);

afterAll(() => {
  if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
});

describe('bin/shieldwatch.mjs', () => {
  it('runs the build while its inputs are unchanged, with the same output as the sources', () => {
    // Act
    const built = runCopy(['--help']);

    // Assess
    expect(built.code).toBe(0);
    expect(built.stderr).toMatch(/running the build .*dist\/cli\/main-\w+\.js/);
    expect(built.stdout).toMatch(/^First steps:\n {2}check /m);
  });

  it('runs the TypeScript sources as soon as a source is newer than the build, never the stale build', () => {
    // Prepare: the registry's summary of check changed after the build
    const registry = path.join(copy, 'cli', 'registry.ts');
    const text = readFileSync(registry, 'utf8');
    writeFileSync(
      registry,
      text.replace("summary: 'check the configuration", "summary: 'EDITED check the configuration"),
    );

    // Act
    const edited = runCopy(['--help']);

    // Assess
    expect(edited.code).toBe(0);
    expect(edited.stderr).toContain(
      'running the TypeScript sources: cli/registry.ts changed since the build',
    );
    expect(edited.stdout).toContain('EDITED check the configuration');
  });

  it('takes a touched file (same size and text, a new mtime) as changed too', () => {
    // Prepare: a build of the sources as they are now, then one file touched
    buildCopy();
    expect(runCopy(['--version']).stderr).toContain('running the build');
    const file = path.join(copy, 'cli', 'format.ts');
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);

    // Act
    const touched = runCopy(['--version']);

    // Assess
    expect(touched.code).toBe(0);
    expect(touched.stderr).toContain('running the TypeScript sources: cli/format.ts changed since the build');
  });

  it('runs the sources when there is no build at all', () => {
    // Prepare
    rmSync(path.join(copy, 'dist'), { recursive: true, force: true });

    // Act
    const none = runCopy(['--version']);

    // Assess
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('running the TypeScript sources: no build');
    expect(none.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('without esbuild (npm ci --omit=dev) the build step succeeds with no build, and the bin runs the sources', () => {
    // Prepare: a node_modules of every installed package but esbuild
    const modules = path.join(copy, 'node_modules');
    rmSync(modules, { recursive: true, force: true });
    mkdirSync(modules);
    for (const name of readdirSync(path.join(PROJECT_ROOT, 'node_modules'))) {
      if (name === 'esbuild' || name === '.bin') continue;
      symlinkSync(path.join(PROJECT_ROOT, 'node_modules', name), path.join(modules, name));
    }
    rmSync(path.join(copy, 'dist'), { recursive: true, force: true });

    // Act
    const build = spawnSync(process.execPath, [path.join(copy, 'scripts', 'build-cli.mjs')], {
      encoding: 'utf8',
    });
    const run = runCopy(['--version']);

    // Assess
    expect(build.status, build.stderr).toBe(0);
    expect(build.stdout).toContain('esbuild is not installed');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('running the TypeScript sources: no build');
  });

  it('the project bin answers --version from wherever it runs (npx shieldwatch)', async () => {
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(
      JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version,
    );
  });
});
