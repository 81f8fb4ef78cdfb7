import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsQueryCommand } from '../../cli/commands/store.ts';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { docPages, PROJECT_ROOT } from '../fixtures/doc-pages.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** docs/design/storage.md: the storage layout and its `aws dynamodb query` example. */
const storagePage = readFileSync(new URL('../../docs/design/storage.md', import.meta.url), 'utf8');
/** Every page of the documentation, one text. */
const allDocs = docPages()
  .map((page) => readFileSync(join(PROJECT_ROOT, page), 'utf8'))
  .join('\n');

/** The `aws dynamodb query` example of docs/design/storage.md, as the arguments the AWS CLI would send. */
function readmeQuery(): {
  keyCondition: string;
  values: Record<string, { S: string }>;
  forward: boolean;
  max: number;
} {
  const block = /```sh\n(aws dynamodb query[\s\S]*?)```/.exec(storagePage)?.[1];
  if (block === undefined) throw new Error('docs/design/storage.md has no aws dynamodb query example');
  const oneLine = block.replace(/\\\n\s*/g, ' ');
  return {
    keyCondition: /--key-condition-expression '([^']+)'/.exec(oneLine)![1]!,
    values: JSON.parse(/--expression-attribute-values '([^']+)'/.exec(oneLine)![1]!),
    forward: !oneLine.includes('--no-scan-index-forward'),
    max: Number(/--max-items (\d+)/.exec(oneLine)![1]),
  };
}

describe('the README and the docs stay true', () => {
  let dynamo: LocalDynamo;
  beforeAll(async () => {
    dynamo = await startDynamo();
  });
  afterAll(async () => dynamo.close());

  it('its aws dynamodb query example returns the newest filter snapshots', async () => {
    // Prepare
    const store = new DynamoStore(dynamo.client, dynamo.table);
    const snapshot = (at: string) => ({
      target: { kind: 'filter' as const },
      at,
      cycleId: 'c',
      ok: true,
      status: 'active',
    });
    await store.putSnapshots(
      [
        snapshot('2026-11-20T23:59:59.000Z'),
        snapshot('2026-11-21T00:00:01.000Z'),
        snapshot('2026-11-22T10:00:00.000Z'),
      ],
      2_000_000_000,
    );
    const query = readmeQuery();

    // Act
    const out = await dynamo.client.send(
      new QueryCommand({
        TableName: dynamo.table,
        KeyConditionExpression: query.keyCondition,
        ExpressionAttributeValues: query.values,
        ScanIndexForward: query.forward,
        Limit: query.max,
      }),
    );

    // Assess
    expect(out.Items?.map((item) => item['at']?.S)).toEqual([
      '2026-11-22T10:00:00.000Z',
      '2026-11-21T00:00:01.000Z',
    ]);
    expect(out.Items?.[0]?.['status']?.S).toBe('active');
  });

  it('its aws dynamodb query example is the command `shieldwatch store --aws` prints, without the local parts', () => {
    // Prepare
    const block = /```sh\n(aws dynamodb query[\s\S]*?)\n```/.exec(storagePage)?.[1];
    const since = /"2\d{3}-[^"]+"/.exec(block ?? '')?.[0];

    // Act: the page names the deployed table by the shell variable it read from the stack's output.
    const asDocs = (command: string) => command.replace('--table-name TABLE', '--table-name "$TABLE"');
    const printed = asDocs(awsQueryCommand({ table: 'TABLE', since: JSON.parse(since ?? '""') as string }));
    const embedded = asDocs(
      awsQueryCommand({
        table: 'TABLE',
        since: JSON.parse(since ?? '""') as string,
        endpoint: 'http://127.0.0.1:8000',
        region: 'us-east-1',
        credentials: { accessKeyId: 'token', secretAccessKey: 'local' },
      }),
    );

    // Assess
    expect(printed).toBe(block);
    expect(embedded).toBe(
      block?.replace(
        'aws dynamodb query',
        'AWS_ACCESS_KEY_ID=token AWS_SECRET_ACCESS_KEY=local AWS_PAGER= aws dynamodb query --endpoint-url http://127.0.0.1:8000 --region us-east-1',
      ),
    );
    expect(storagePage).toContain('npx shieldwatch store --aws');
  });

  it("names the deployed table only through the stack's TableName output, never by a literal name", () => {
    // Prepare: CloudFormation generates the table's name, so `shieldwatch` (the CLI's default) is not it.
    const tableNames = [...allDocs.matchAll(/--table-name ([^\s`]+)/g)].map((match) => match[1]);
    const output = `TABLE=$(aws cloudformation describe-stacks --stack-name Shieldwatch \\
  --query "Stacks[0].Outputs[?OutputKey=='TableName'].OutputValue" --output text)`;

    // Assess
    expect(tableNames.length).toBeGreaterThan(0);
    expect(tableNames.filter((name) => name !== '"$TABLE"')).toEqual([]);
    expect(allDocs).toContain(output);
  });

  it('documents every configuration variable the loader reads', () => {
    // Prepare
    const source = readFileSync(new URL('../../lambda/settings.ts', import.meta.url), 'utf8');
    const variables = [...new Set(source.match(/SHIELDWATCH_[A-Z_]+/g) ?? [])];

    // Act
    const missing = variables.filter((name) => !readme.includes(`\`${name}\``));

    // Assess
    expect(variables.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
