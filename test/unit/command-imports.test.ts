/**
 * What a store command loads at start (issue 21.5): `status` and `events` read only DynamoDB, so their static
 * imports must not reach the SDK packages of SNS, Secrets Manager, CloudFormation or STS (each about 25-50 KB
 * of bundle to compile at every start). The import graph is read from esbuild's metafile, packages external.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const OTHER_SERVICES = [
  '@aws-sdk/client-sns',
  '@aws-sdk/client-secrets-manager',
  '@aws-sdk/client-cloudformation',
  '@aws-sdk/client-sts',
];

/** The packages a module reaches through static imports only (a dynamic `import()` loads when it runs). */
async function staticPackages(entry: string): Promise<Set<string>> {
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
  return packages;
}

describe('the store commands load only the DynamoDB client', () => {
  it.each(['cli/commands/status.ts', 'cli/commands/events.ts', 'cli/store/open.ts'])(
    '%s imports no other AWS service at start',
    async (entry) => {
      // Act
      const packages = await staticPackages(entry);

      // Assess: DynamoDB is there (the graph was read), no other service's client
      expect(packages).toContain('@aws-sdk/client-dynamodb');
      expect([...packages].filter((p) => OTHER_SERVICES.includes(p))).toEqual([]);
    },
  );
});
