/**
 * The private status page's signing key and `shieldwatch page-link` (docs/status-page.md), on a loopback
 * moto_server (Secrets Manager, CloudFormation). The deploy-time custom resource makes the key pair: its answer
 * to CloudFormation (a real HTTP PUT to a loopback server) carries the public half only, the private half is in
 * the secret. `page-link` reads the stack's outputs and the secret and prints a URL whose CloudFront signature
 * (RSA-SHA1 over the policy, CloudFront's base64) verifies against that public key, with the expiry asked for.
 */
import { createPublicKey, createVerify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler, type KeyPairRequest } from '../../lambda/status-page-key-handler.ts';
import { type MotoServer, startMoto } from '../fixtures/moto-server.ts';
import { describeRun, runCli } from './helpers.ts';

/** What the custom resource PUT to CloudFormation's URL. */
interface CfnAnswer {
  readonly Status: string;
  readonly PhysicalResourceId: string;
  readonly Data?: { PublicKeyPem: string };
  readonly [field: string]: unknown;
}

const REGION = 'eu-west-2';
const PAGE_URL = 'https://d111111abcdef8.cloudfront.net/';
const KEY_ID = 'K2JCJMDEHXQW5F';

/** CloudFront's URL-safe base64 (`+` `-`, `=` `_`, `/` `~`) back to bytes. */
function cloudFrontBase64(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');
}

describe('the status page signing key and page-link', () => {
  let moto: MotoServer;
  let secrets: SecretsManagerClient;
  let secretArn: string;
  let responder: Server;
  let responderUrl: string;
  const answers: string[] = [];
  let publicKeyPem: string;

  beforeAll(async () => {
    moto = await startMoto();
    const client = {
      region: REGION,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    };
    secrets = new SecretsManagerClient(client);
    secretArn = (
      await secrets.send(new CreateSecretCommand({ Name: 'page-key', SecretString: 'placeholder' }))
    ).ARN!;
    responder = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        answers.push(body);
        res.end();
      });
    });
    await new Promise<void>((resolve) => responder.listen(0, '127.0.0.1', resolve));
    responderUrl = `http://127.0.0.1:${(responder.address() as AddressInfo).port}/response`;
  }, 60_000);

  afterAll(async () => {
    secrets?.destroy();
    await new Promise<void>((resolve) => (responder ? responder.close(() => resolve()) : resolve()));
    await moto?.stop();
  });

  async function runKeyResource(type: KeyPairRequest['RequestType']): Promise<CfnAnswer> {
    const saved = { ...process.env };
    Object.assign(process.env, { ...moto.env, AWS_REGION: REGION });
    try {
      answers.length = 0;
      await handler({
        RequestType: type,
        ResponseURL: responderUrl,
        StackId: 'arn:aws:cloudformation:eu-west-2:123456789012:stack/Page/1',
        RequestId: `r-${type}`,
        LogicalResourceId: 'KeyPair',
        ...(type === 'Create' ? {} : { PhysicalResourceId: 'status-page-key-x' }),
        ResourceProperties: { SecretId: secretArn },
      });
    } finally {
      process.env = saved;
    }
    expect(answers).toHaveLength(1);
    return JSON.parse(answers[0]!);
  }

  it('the custom resource answers with the public key only; the private key is in the secret', async () => {
    // Act
    const created = await runKeyResource('Create');

    // Assess
    expect(created).toMatchObject({ Status: 'SUCCESS', RequestId: 'r-Create', LogicalResourceId: 'KeyPair' });
    expect(Object.keys(created.Data ?? {})).toEqual(['PublicKeyPem']);
    expect(answers[0]).not.toContain('PRIVATE');
    publicKeyPem = created.Data!.PublicKeyPem;
    expect(publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const stored = (await secrets.send(new GetSecretValueCommand({ SecretId: secretArn }))).SecretString!;
    expect(stored).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(createPublicKey(stored).export({ type: 'spki', format: 'pem' })).toBe(publicKeyPem);
    expect(createPublicKey(publicKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);

    // An update keeps the key (links already handed out stay valid)
    const updated = await runKeyResource('Update');
    expect(updated.Data).toEqual({ PublicKeyPem: publicKeyPem });
    expect(updated.PhysicalResourceId).toBe(created.PhysicalResourceId);
  });

  it('a failure is answered FAILED, so the deploy fails instead of hanging', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { ...moto.env, AWS_REGION: REGION });
    answers.length = 0;
    try {
      await handler({
        RequestType: 'Update',
        ResponseURL: responderUrl,
        StackId: 's',
        RequestId: 'r',
        LogicalResourceId: 'KeyPair',
        PhysicalResourceId: 'p',
        ResourceProperties: { SecretId: 'no-such-secret' },
      });
    } finally {
      process.env = saved;
    }
    expect(JSON.parse(answers[0]!)).toMatchObject({
      Status: 'FAILED',
      Reason: expect.stringMatching(/ResourceNotFound/),
    });
  });

  it('page-link prints a URL signed for --for, which verifies against the public key', async () => {
    // Prepare: a stack with the outputs of a private page
    const cfn = new CloudFormationClient({
      region: REGION,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
    await cfn.send(
      new CreateStackCommand({
        StackName: 'Page',
        TemplateBody: JSON.stringify({
          Resources: { T: { Type: 'AWS::SNS::Topic' } },
          Outputs: {
            StatusPageUrl: { Value: PAGE_URL },
            StatusPageKeyId: { Value: KEY_ID },
            StatusPageKeySecret: { Value: secretArn },
          },
        }),
      }),
    );
    await cfn.send(
      new CreateStackCommand({
        StackName: 'NoPage',
        TemplateBody: JSON.stringify({ Resources: { T: { Type: 'AWS::SNS::Topic' } } }),
      }),
    );
    cfn.destroy();
    expect(publicKeyPem).toBeDefined();
    const env = { ...moto.env, AWS_DEFAULT_REGION: REGION };
    const before = Math.floor(Date.now() / 1000);

    // Act
    const run = await runCli(['page-link', '--stack', 'Page', '--for', '2d'], env);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('PRIVATE');
    const url = new URL(run.stdout.trim());
    expect(`${url.origin}${url.pathname}`).toBe(PAGE_URL);
    expect(url.searchParams.get('Key-Pair-Id')).toBe(KEY_ID);
    const policy = cloudFrontBase64(url.searchParams.get('Policy')!);
    const statement = JSON.parse(policy.toString('utf8')).Statement[0];
    expect(statement.Resource).toBe(`${PAGE_URL}*`);
    const expires = statement.Condition.DateLessThan['AWS:EpochTime'];
    expect(expires).toBeGreaterThanOrEqual(before + 2 * 86_400);
    expect(expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 2 * 86_400);
    expect(run.stderr).toContain(`valid until ${new Date(expires * 1000).toISOString()}`);
    const verify = createVerify('RSA-SHA1');
    verify.update(policy);
    expect(verify.verify(publicKeyPem, cloudFrontBase64(url.searchParams.get('Signature')!))).toBe(true);
    // A changed expiry no longer verifies.
    const forged = createVerify('RSA-SHA1');
    forged.update(policy.toString('utf8').replace(String(expires), String(expires + 86_400)));
    expect(forged.verify(publicKeyPem, cloudFrontBase64(url.searchParams.get('Signature')!))).toBe(false);

    // Assess: the default is 7 days; too long a link, and a stack without a page, are refused
    const week = await runCli(['page-link', '--stack', 'Page'], env);
    expect(week.code, describeRun(week)).toBe(0);
    const weekExpiry = JSON.parse(
      cloudFrontBase64(new URL(week.stdout.trim()).searchParams.get('Policy')!).toString('utf8'),
    ).Statement[0].Condition.DateLessThan['AWS:EpochTime'];
    expect(weekExpiry - before).toBeGreaterThanOrEqual(7 * 86_400);
    expect(weekExpiry - before).toBeLessThan(7 * 86_400 + 120);
    const tooLong = await runCli(['page-link', '--stack', 'Page', '--for', '31d'], env);
    expect(tooLong.code, describeRun(tooLong)).toBe(2);
    expect(tooLong.stderr).toContain('--for must be a duration');
    const noPage = await runCli(['page-link', '--stack', 'NoPage'], env);
    expect(noPage.code, describeRun(noPage)).toBe(2);
    expect(noPage.stderr).toContain('has no status page (no output StatusPageUrl)');
  }, 60_000);
});
