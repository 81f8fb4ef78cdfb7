/**
 * Stored text printed by the real CLI (issue 19.10): bidirectional overrides and isolates (U+202A-202E,
 * U+2066-2069), the marks U+200E, U+200F and U+061C, C1 controls and line separators in a silence reason or
 * an event are shown as visible escapes in tables, written as \uXXXX escapes in JSON (which read back as the
 * same text), and never reach the terminal as they are.
 */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { describeRun, runCli } from './helpers.ts';

/** Every character under test, each between letters so that its effect on their order would show. */
const HOSTILE = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const REASON = `fix ${HOSTILE.join('x')} done`;
const RAW = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029\u0085]/;

describe('stored text with bidirectional controls, printed by the CLI', () => {
  let dynamo: LocalDynamo;
  let env: Record<string, string>;

  beforeAll(async () => {
    dynamo = await startDynamo();
    env = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_TABLE: dynamo.table,
    };
    const at = new Date(Date.now() - 60_000).toISOString();
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: dynamo.table,
        Item: {
          pk: 'event',
          sk: `${at}#000000000001`,
          at,
          event: 'filter.status_changed',
          seq: 1,
          from: 'active',
          to: 'mitig\u202Eating\u2028\u0085',
          detail: `api \u2066said\u2069 no`,
        },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await dynamo?.close();
  });

  it('escapes them in a silence reason: in the table as <U+XXXX>, in JSON as \\uXXXX', async () => {
    // Prepare
    const made = await runCli(['silence', '--for', '1h', '--reason', REASON], env);
    expect(made.code, describeRun(made)).toBe(0);

    // Act
    const table = await runCli(['silence', 'list'], env);
    const json = await runCli(['silence', 'list', '--format', 'json'], env);

    // Assess
    expect(table.code, describeRun(table)).toBe(0);
    expect(table.stdout).not.toMatch(RAW);
    // The table cuts the reason to its column; what the command printed when it made the silence is whole.
    expect(table.stdout).toContain('fix <U+202A>x<U+202B>x<U+202C>x<U+202D>x<U+202E>');
    expect(made.stdout).not.toMatch(RAW);
    expect(made.stdout).toContain(
      'fix <U+202A>x<U+202B>x<U+202C>x<U+202D>x<U+202E>x<U+2066>x<U+2067>x<U+2068>x<U+2069>x<U+200E>x<U+200F>x<U+061C> done',
    );
    expect(json.code, describeRun(json)).toBe(0);
    expect(json.stdout).not.toMatch(RAW);
    expect(json.stdout).toContain('\\u202e');
    expect((JSON.parse(json.stdout) as Array<{ reason: string }>)[0]!.reason).toBe(REASON);
  });

  it('escapes them in events: the table, JSON and CSV', async () => {
    // Act
    const table = await runCli(['events', '--all', '--since', '1h'], env);
    const json = await runCli(['events', '--all', '--since', '1h', '--format', 'json'], env);
    const csv = await runCli(['events', '--all', '--since', '1h', '--format', 'csv'], env);

    // Assess
    for (const run of [table, json, csv]) {
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).not.toMatch(RAW);
    }
    expect(table.stdout).toContain('mitig<U+202E>ating<U+2028><U+0085>');
    expect(table.stdout).toContain('api <U+2066>said<U+2069> no');
    expect(csv.stdout).toContain('mitig<U+202E>ating');
    const [event] = JSON.parse(json.stdout) as Array<{ to: string; detail: string }>;
    expect(event!.to).toBe('mitig\u202Eating\u2028\u0085');
  });
});
