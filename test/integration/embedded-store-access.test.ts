// Integration tests of the embedded store's access rules (cli/store/): only its owner, with its token, on
// 127.0.0.1, gets in. Starting, sharing and restarting the store: embedded-store.test.ts.
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureEmbeddedStore, stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { dynamo, removeStoreDir } from '../fixtures/embedded-store.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-store-'));
});

afterEach(async () => {
  await removeStoreDir(dir);
});

/** A raw POST to the store, as an unsigned or foreign client would send it. */
function rawPost(
  endpoint: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${endpoint}/`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'x-amz-date': '20200101T000000Z',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

describe("the embedded store is its owner's alone", () => {
  it('keeps a random token in a file only the owner can read', async () => {
    // Prepare
    const other = await mkdtemp(path.join(tmpdir(), 'shieldwatch-store-other-'));

    // Act
    const store = await ensureEmbeddedStore({ dir });
    const otherStore = await ensureEmbeddedStore({ dir: other }).finally(() => stopEmbeddedStore(other));

    // Assess
    const tokenFile = path.join(dir, 'token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(path.join(other, 'token'), 'utf8').trim()).not.toBe(token);
    // What callers get is the server's session key, never the token.
    expect(JSON.stringify(store)).not.toContain(token);
    expect(otherStore.secretAccessKey).not.toBe(store.secretAccessKey);
    await rm(other, { recursive: true, force: true });
  });

  it.each([
    ['no Authorization header', {}],
    [
      'a wrong access key id',
      {
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIDWRONGWRONGWRONG1/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
    ],
    ['a query-string signature', { 'x-amz-credential': 'x' }],
  ])('refuses a request with %s', async (_name, headers) => {
    // Prepare
    const store = await ensureEmbeddedStore({ dir });

    // Act
    const answer = await rawPost(store.endpoint, headers);

    // Assess
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      __type: 'com.amazon.coral.service#UnrecognizedClientException',
    });
    expect(answer.body).not.toContain('TableNames');
  });

  it('refuses an SDK client with another access key id or another secret key, and serves one with its credentials', async () => {
    // Prepare
    const store = await ensureEmbeddedStore({ dir });
    const stranger = dynamo({ ...store, accessKeyId: 'AKIDEXAMPLEEXAMPLE12' });
    const guesser = dynamo({ ...store, secretAccessKey: 'local' });
    const owner = dynamo(store);

    // Act
    const refused = await stranger.send(new ListTablesCommand({})).catch((error: Error) => error);
    const guessed = await guesser.send(new ListTablesCommand({})).catch((error: Error) => error);
    const served = await owner.send(new ListTablesCommand({}));
    for (const client of [stranger, guesser, owner]) client.destroy();

    // Assess
    expect((refused as Error).name).toBe('UnrecognizedClientException');
    expect((guessed as Error).name).toBe('UnrecognizedClientException');
    expect(served.TableNames).toEqual([]);
  });

  it('starts its server without the API key, SHIELDWATCH_* settings or AWS credentials in its environment', async () => {
    // Prepare: the secrets a CLI process may hold in its environment.
    const secrets = {
      SHIELDWATCH_API_KEY: 'sk-live-secret-key-0123456789',
      SHIELDWATCH_STORE_IDLE_MS: '120000',
      AWS_ACCESS_KEY_ID: 'AKIDREALCREDENTIALS1',
      AWS_SECRET_ACCESS_KEY: 'real-secret-access-key',
      AWS_SESSION_TOKEN: 'real-session-token',
    };
    Object.assign(process.env, secrets);

    // Act
    const store = await ensureEmbeddedStore({ dir }).finally(() => {
      for (const name of Object.keys(secrets)) delete process.env[name];
    });
    const environ = readFileSync(`/proc/${store.pid}/environ`, 'utf8');

    // Assess
    expect(store.started).toBe(true);
    const names = environ.split('\0').map((entry) => entry.split('=')[0]);
    expect(names.filter((name) => name?.startsWith('SHIELDWATCH_') || name?.startsWith('AWS_'))).toEqual([]);
    for (const value of Object.values(secrets)) expect(environ).not.toContain(value);
  });
});
