/**
 * `shieldwatch set-key`: the key from standard input into the stack's secret, found from the stack's outputs
 * (a loopback CloudFormation) or `--secret`, written with PutSecretValue (a loopback Secrets Manager), then one
 * `check` against a loopback API. The key never shows in the output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type CliRun, describeRun, PROJECT_ROOT, runCli } from './helpers.ts';

/** util-linux `script`, which runs a command on a pseudo-terminal: the only way here to be a TTY. */
const hasScript = spawnSync('script', ['--version']).status === 0;

/** Runs set-key on a pseudo-terminal, types `typed` once the prompt shows, and returns all it printed. */
function runOnTerminal(args: string, env: Record<string, string>, typed: string): Promise<string> {
  const child = spawn('script', ['-qec', `node bin/shieldwatch.mjs set-key ${args}`, '/dev/null'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      ...env,
    },
  });
  let output = '';
  let sent = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    // Typed only once the prompt shows, i.e. once echo is off; typed earlier, the terminal would echo it.
    if (!sent && output.includes('API key (not shown')) {
      sent = true;
      child.stdin.write(typed);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => {
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

const KEY = 'swk_live_Qm7Zr4Tx9Lp2Vb8N';
const SECRET_NAME = 'ShieldwatchApiKeySecret-Xy12';
const SECRET_ARN = `arn:aws:secretsmanager:us-east-1:123456789012:secret:${SECRET_NAME}-AbCdEf`;

/** A loopback Secrets Manager (PutSecretValue, GetSecretValue) and CloudFormation (DescribeStacks). */
interface FakeAws {
  readonly url: string;
  /** Every request: the operation and its parameters as sent (SecretString included, to check it arrived). */
  readonly requests: { operation: string; params: Record<string, string> }[];
  /** The secrets by name. */
  readonly secrets: Map<string, string>;
  /** The stacks' outputs by stack name. */
  readonly stacks: Map<string, Record<string, string>>;
  close(): Promise<void>;
}

async function startFakeAws(): Promise<FakeAws> {
  const requests: FakeAws['requests'] = [];
  const secrets = new Map<string, string>([[SECRET_NAME, '']]);
  const stacks = new Map<string, Record<string, string>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = req.headers['x-amz-target'];
      if (typeof target === 'string') {
        const operation = target.replace('secretsmanager.', '');
        const params = JSON.parse(body) as Record<string, string>;
        requests.push({ operation, params });
        const name = params['SecretId']!.startsWith('arn:')
          ? params['SecretId']!.split(':')[6]!.replace(/-[A-Za-z0-9]{6}$/, '')
          : params['SecretId']!;
        if (!secrets.has(name)) {
          res.writeHead(400, {
            'content-type': 'application/x-amz-json-1.1',
            'x-amzn-errortype': 'ResourceNotFoundException',
          });
          res.end(
            JSON.stringify({
              __type: 'ResourceNotFoundException',
              message: "Secrets Manager can't find the specified secret.",
            }),
          );
          return;
        }
        if (operation === 'PutSecretValue') secrets.set(name, params['SecretString']!);
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(
          JSON.stringify({
            ARN: SECRET_ARN,
            Name: name,
            VersionId: randomUUID(),
            ...(operation === 'GetSecretValue'
              ? { SecretString: secrets.get(name), VersionStages: ['AWSCURRENT'] }
              : {}),
          }),
        );
        return;
      }
      const form = Object.fromEntries(new URLSearchParams(body));
      requests.push({ operation: form['Action'] ?? '', params: form });
      const outputs = stacks.get(form['StackName'] ?? '');
      res.writeHead(outputs === undefined ? 400 : 200, { 'content-type': 'text/xml' });
      res.end(
        outputs === undefined
          ? '<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type>' +
              `<Code>ValidationError</Code><Message>Stack with id ${form['StackName']} does not exist</Message></Error>` +
              `<RequestId>${randomUUID()}</RequestId></ErrorResponse>`
          : '<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult>' +
              `<Stacks><member><StackName>${form['StackName']}</StackName><StackStatus>CREATE_COMPLETE</StackStatus>` +
              '<CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>' +
              Object.entries(outputs)
                .map(
                  ([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`,
                )
                .join('') +
              `</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>${randomUUID()}` +
              '</RequestId></ResponseMetadata></DescribeStacksResponse>',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    secrets,
    stacks,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('shieldwatch set-key', () => {
  let aws: FakeAws;
  let api: FakeApi;
  let env: Record<string, string>;

  beforeAll(async () => {
    [aws, api] = await Promise.all([startFakeAws(), startFakeApi({ key: KEY })]);
    aws.stacks.set('Shieldwatch', { SecretName: SECRET_NAME, ApiUrl: api.url, TopicArn: 'arn:aws:sns:x' });
    env = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.url,
      AWS_ENDPOINT_URL_CLOUDFORMATION: aws.url,
      SHIELDWATCH_API_KEY: 'an-old-key-in-the-environment',
    };
  });

  afterAll(async () => {
    await Promise.all([aws?.close(), api?.close()]);
  });

  const expectKeyNowhere = (run: CliRun) => {
    expect(run.stdout).not.toContain(KEY);
    expect(run.stderr).not.toContain(KEY);
  };
  const operations = () => aws.requests.map((r) => r.operation);

  it("puts the piped key into the secret named by the stack's outputs, then checks it against the API", async () => {
    // Prepare
    aws.requests.length = 0;
    aws.secrets.set(SECRET_NAME, '');

    // Act
    const run = await runCli(['set-key'], env, { input: `${KEY}\n` });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(operations()).toEqual(['DescribeStacks', 'PutSecretValue', 'GetSecretValue']);
    expect(aws.requests[0]!.params['StackName']).toBe('Shieldwatch');
    expect(aws.requests[1]!.params).toMatchObject({ SecretId: SECRET_NAME, SecretString: KEY });
    expect(aws.secrets.get(SECRET_NAME)).toBe(KEY);
    expect(run.stdout).toMatch(new RegExp(`key +put into secret ${SECRET_NAME} \\(version [0-9a-f-]{36}\\)`));
    expect(run.stdout).toContain(`API          ${api.url}`);
    expect(run.stdout).toMatch(/key owner +ok/);
    expect(run.stdout).toContain('ready to monitor');
    expect(new Set(api.requests.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${KEY}`]));
    expectKeyNowhere(run);
  });

  it('takes the secret from --secret without asking CloudFormation, and reports a key the API rejects', async () => {
    // Prepare
    aws.requests.length = 0;
    const wrong = 'swk_live_WrongWrongWrong1';

    // Act
    const run = await runCli(
      ['set-key', '--secret', SECRET_ARN],
      { ...env, SHIELDWATCH_API_URL: api.url },
      {
        input: wrong,
      },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(operations()).toEqual(['PutSecretValue', 'GetSecretValue']);
    expect(aws.requests[0]!.params).toMatchObject({ SecretId: SECRET_ARN, SecretString: wrong });
    expect(run.stdout).toMatch(/key owner +FAIL auth/);
    expect(run.stdout).not.toContain(wrong);
    expect(run.stderr).not.toContain(wrong);
  });

  it.skipIf(!hasScript)('reads a typed key from a terminal without echoing it', async () => {
    // Prepare
    aws.requests.length = 0;

    // Act
    const output = await runOnTerminal(
      `--secret ${SECRET_NAME}`,
      { ...env, SHIELDWATCH_API_URL: api.url },
      `${KEY}\r`,
    );

    // Assess
    expect(output).toContain('API key (not shown, Enter to finish): ');
    expect(output).toContain('ready to monitor');
    expect(output).not.toContain(KEY);
    expect(aws.requests[0]).toMatchObject({ operation: 'PutSecretValue', params: { SecretString: KEY } });
  });

  it.each([
    ['empty input', ''],
    ['only a line break', '\n'],
  ])('refuses %s (no terminal to type in) and changes nothing', async (_name, input) => {
    // Prepare
    aws.requests.length = 0;

    // Act
    const run = await runCli(['set-key', '--secret', SECRET_NAME], env, { input });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('shieldwatch set-key: no key on standard input');
    expect(aws.requests).toEqual([]);
  });

  it('refuses the key as an argument without echoing it, and changes nothing', async () => {
    // Prepare
    aws.requests.length = 0;

    // Act
    const run = await runCli(['set-key', KEY], env, { input: KEY });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('unexpected argument, not shown');
    expectKeyNowhere(run);
    expect(aws.requests).toEqual([]);
  });

  it.each([
    ['inner whitespace', 'swk live key'],
    ['too short', 'abc'],
  ])('refuses a key the monitor would refuse (%s) without showing it', async (_name, key) => {
    // Prepare
    aws.requests.length = 0;

    // Act
    const run = await runCli(['set-key', '--secret', SECRET_NAME], env, { input: key });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('(value not shown)');
    expect(run.stderr).not.toContain(key);
    expect(aws.requests).toEqual([]);
  });

  it('names the stack and --secret when the stack does not exist', async () => {
    // Act
    const run = await runCli(['set-key', '--stack', 'Elsewhere'], env, { input: KEY });

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toMatch(/cannot read the outputs of stack Elsewhere: .*does not exist.*--secret NAME/);
    expectKeyNowhere(run);
  });

  it('names the secret when it does not exist, without the key', async () => {
    // Act
    const run = await runCli(['set-key', '--secret', 'no/such/secret'], env, { input: KEY });

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toMatch(/cannot put the key into secret no\/such\/secret: Secrets Manager can't find/);
    expectKeyNowhere(run);
  });
});
