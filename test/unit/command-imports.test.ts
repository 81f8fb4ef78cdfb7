/**
 * What a store command loads at start (issue 21.5): `status`, `events` and `incidents` read only DynamoDB, so their static
 * imports must not reach the SDK packages of SNS, Secrets Manager, CloudFormation or STS (each about 25-50 KB
 * of bundle to compile at every start), nor the alerts' texts (the alert families, about 33 KB built: they
 * show silences and stored events, they render no alert). The import graph is read from esbuild's metafile,
 * packages external.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const OTHER_SERVICES = [
  '@aws-sdk/client-sns',
  '@aws-sdk/client-secrets-manager',
  '@aws-sdk/client-cloudformation',
  '@aws-sdk/client-sts',
];

/**
 * The packages and the project's files a module reaches through static imports only (a dynamic `import()`
 * loads when it runs).
 */
async function staticGraph(entry: string): Promise<{ packages: Set<string>; files: Set<string> }> {
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
  const packages = new Set<string>();
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.kind === 'dynamic-import') continue;
      if (imported.external === true) packages.add(imported.path);
      else walk(imported.path);
    }
  };
  walk(entry);
  return { packages, files: seen };
}

/** The modules that render alerts: the family records and their texts. */
const ALERT_TEXTS = /(^|\/)(alert-families\/|[a-z-]*alert-text\.ts$|alert-documents\.ts$|alert-email\.ts$)/;

describe('the store commands load only the DynamoDB client', () => {
  it.each([
    'cli/commands/status.ts',
    'cli/commands/events.ts',
    'cli/commands/incidents.ts',
    'cli/store/open.ts',
  ])('%s imports no other AWS service at start', async (entry) => {
    // Act
    const { packages } = await staticGraph(entry);

    // Assess: DynamoDB is there (the graph was read), no other service's client
    expect(packages).toContain('@aws-sdk/client-dynamodb');
    expect([...packages].filter((p) => OTHER_SERVICES.includes(p))).toEqual([]);
  });
});

describe('the commands that read the store render no alert', () => {
  it.each(['cli/commands/status.ts', 'cli/commands/events.ts', 'cli/commands/incidents.ts'])(
    '%s loads no alert family or alert text at start',
    async (entry) => {
      // Act
      const { files } = await staticGraph(entry);

      // Assess: the event names are there (the graph was read), nothing that renders an alert
      expect(files).toContain('lambda/core/alerts/alert-events.ts');
      expect([...files].filter((file) => ALERT_TEXTS.test(file))).toEqual([]);
    },
  );
});
