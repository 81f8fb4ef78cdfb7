/**
 * `shieldwatch incidents` reads the store and renders no alert (as `status` and `events`,
 * test/unit/command-imports.test.ts): its static imports reach no alert family nor any alert text module, whose
 * ~33 KB built would load at every start. The import graph is read from esbuild's metafile, packages external.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The project's files a module reaches through static imports only (a dynamic `import()` loads when it runs). */
async function staticFiles(entry: string): Promise<Set<string>> {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const inputs: Metafile['inputs'] = metafile.inputs;
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.kind !== 'dynamic-import' && imported.external !== true) walk(imported.path);
    }
  };
  walk(entry);
  return seen;
}

/** The modules that render alerts: the family records and their texts. */
const ALERT_TEXTS = /(^|\/)(alert-families\/|[a-z-]*alert-text\.ts$|alert-documents\.ts$|alert-email\.ts$)/;

describe('shieldwatch incidents renders no alert', () => {
  it('cli/commands/incidents.ts loads no alert family or alert text at start', async () => {
    // Act
    const files = await staticFiles('cli/commands/incidents.ts');

    // Assess: the listing is there (the graph was read), nothing that renders an alert
    expect(files).toContain('lambda/core/incident-list-kinds.ts');
    expect([...files].filter((file) => ALERT_TEXTS.test(file))).toEqual([]);
  });
});
