/**
 * `shieldwatch page-link`: a link to the deployed private status page, signed for CloudFront with the stack's
 * own key (docs/status-page.md). The key is read from the secret the stack names; it is never printed.
 */
import type { Stack as CfnStack } from '@aws-sdk/client-cloudformation';
import { clientDefaults } from '../../lambda/adapters/aws-clients.ts';
import { createSecretsClient } from '../../lambda/adapters/secrets-client.ts';
import { STATUS_PAGE_OUTPUTS } from '../../lambda/status-page/stack-outputs.ts';
import { defineCommand } from '../args.ts';
import { parseDurationMs, UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { StackError, stackName } from '../stack.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Default and longest validity of a link: a signed link cannot be revoked short of a new key (docs). */
export const DEFAULT_LINK_FOR = '7d';
export const MAX_LINK_DAYS = 30;

/** What the CLI reads of a stack with a status page. */
export interface StatusPageStack {
  readonly name: string;
  readonly region: string;
  readonly url: string;
  /** Private pages only. */
  readonly keyId?: string;
  readonly keySecret?: string;
}

/**
 * A CloudFront custom policy that lets the link's holder read every object of the page (its landing page,
 * reports and status.json) until `expiresAtSeconds`.
 */
export function pagePolicy(url: string, expiresAtSeconds: number): string {
  const base = url.endsWith('/') ? url : `${url}/`;
  return JSON.stringify({
    Statement: [{ Resource: `${base}*`, Condition: { DateLessThan: { 'AWS:EpochTime': expiresAtSeconds } } }],
  });
}

/** Describes the stack and reads its status page outputs. */
export async function describeStatusPage(name: string, env: Env): Promise<StatusPageStack> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const client = new CloudFormationClient({
    ...clientDefaults(env, 'cloudformation'),
    requestHandler: { connectionTimeout: 3000, requestTimeout: 10_000, throwOnRequestTimeout: true },
  });
  try {
    let stack: CfnStack | undefined;
    try {
      stack = (await client.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
    } catch (error) {
      const e = error as Error;
      const notFound = /does not exist/i.test(e.message);
      throw new StackError(
        notFound
          ? `no stack named ${JSON.stringify(name)} in ${(await client.config.region().catch(() => undefined)) ?? 'the configured region'}`
          : `cannot describe the stack ${JSON.stringify(name)}: ${e.name}: ${e.message}`,
        notFound || e.name === 'CredentialsProviderError' || /region is missing/i.test(e.message) ? 2 : 1,
        { cause: error },
      );
    }
    if (stack === undefined) throw new StackError(`no stack named ${JSON.stringify(name)}`, 2);
    const outputs = new Map((stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
    const url = outputs.get(STATUS_PAGE_OUTPUTS.url) ?? '';
    if (url === '') {
      throw new StackError(
        `the stack ${JSON.stringify(stack.StackName ?? name)} has no status page (no output ${STATUS_PAGE_OUTPUTS.url}): ` +
          'deploy it with -c statusPage=private (docs/status-page.md)',
        2,
      );
    }
    const region = stack.StackId?.split(':')[3] || (await client.config.region());
    const keyId = outputs.get(STATUS_PAGE_OUTPUTS.keyId) ?? '';
    const keySecret = outputs.get(STATUS_PAGE_OUTPUTS.keySecret) ?? '';
    return {
      name: stack.StackName ?? name,
      region,
      url,
      ...(keyId === '' || keySecret === '' ? {} : { keyId, keySecret }),
    };
  } finally {
    client.destroy();
  }
}

/** Signs `url` for `forMs` from `nowMs` with the private key; resolves with the link and its expiry. */
export async function signPageLink(
  url: string,
  keyId: string,
  privateKey: string,
  nowMs: number,
  forMs: number,
): Promise<{ link: string; expiresAt: Date }> {
  const { getSignedUrl } = await import('@aws-sdk/cloudfront-signer');
  const expiresAtSeconds = Math.floor((nowMs + forMs) / 1000);
  const link = getSignedUrl({
    url,
    keyPairId: keyId,
    privateKey,
    policy: pagePolicy(url, expiresAtSeconds),
  });
  return { link, expiresAt: new Date(expiresAtSeconds * 1000) };
}

export const pageLinkCommand = defineCommand({
  name: 'page-link',
  usage: ['page-link --stack NAME [--for 7d]'],
  description: [
    'Prints a link to the status page of a stack deployed with -c statusPage=private: its StatusPageUrl',
    "signed for CloudFront with the stack's own key (read from the secret the stack names; never printed).",
    'The link opens the landing page, the reports of 24 hours and 7 days and status.json until it expires;',
    'it cannot be revoked before that (short of a new key: docs/status-page.md), so give it the shortest life',
    'that serves. A public page needs no signature: its plain URL is printed.',
  ].join('\n'),
  options: {
    stack: { type: 'string', value: 'NAME', description: 'the deployed stack (or SHIELDWATCH_STACK)' },
    for: {
      type: 'string',
      value: 'DURATION',
      default: DEFAULT_LINK_FOR,
      description: `how long the link is valid, up to ${MAX_LINK_DAYS}d`,
      examples: ['30m', '12h', '7d'],
    },
  },
  examples: ['page-link --stack Shieldwatch', 'page-link --stack Shieldwatch --for 12h'],
  notes: [
    'Needs AWS credentials that may describe the stack and read its key secret.',
    'Exit codes: 0 printed; 1 AWS failed; 2 bad usage, no such stack, or no status page on it.',
  ].join('\n'),
  async run(values, io: CliIo) {
    const name = stackName(values.stack, io.env);
    if (name === undefined)
      throw new UsageError('--stack NAME is required (the stack deployed with statusPage)');
    const forText = values.for;
    const forMs = parseDurationMs('--for', forText, 60_000, MAX_LINK_DAYS * 86_400_000);
    try {
      const page = await describeStatusPage(name, io.env);
      if (page.keyId === undefined || page.keySecret === undefined) {
        println(io.stderr, `page-link: the status page of ${page.name} is public: no signature needed`);
        println(io.stdout, page.url);
        return 0;
      }
      const secrets = createSecretsClient({ ...io.env, AWS_REGION: page.region });
      let privateKey: string | undefined;
      try {
        const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
        privateKey = (await secrets.send(new GetSecretValueCommand({ SecretId: page.keySecret })))
          .SecretString;
      } catch (error) {
        const e = error as Error;
        throw new StackError(
          `cannot read the page's key secret ${page.keySecret}: ${e.name}: ${e.message}`,
          1,
          {
            cause: error,
          },
        );
      } finally {
        secrets.destroy();
      }
      if (privateKey === undefined || !privateKey.includes('PRIVATE KEY')) {
        throw new StackError(
          `the secret ${page.keySecret} holds no private key: has the stack's deployment finished?`,
          1,
        );
      }
      const { link, expiresAt } = await signPageLink(page.url, page.keyId, privateKey, io.now(), forMs);
      println(io.stderr, `page-link: valid until ${expiresAt.toISOString()} (${forText})`);
      println(io.stdout, link);
      return 0;
    } catch (error) {
      if (!(error instanceof StackError)) throw error;
      println(io.stderr, `shieldwatch page-link: ${error.message}`);
      return error.exitCode;
    }
  },
});
