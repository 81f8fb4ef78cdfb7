/**
 * The custom resource that makes the status page's signing key at deploy (docs/status-page.md, private):
 * an RSA key pair made here with node:crypto, whose private half goes straight into the stack's Secrets
 * Manager secret and nowhere else (not the template, the environment, a log line or the response); the
 * response carries the public half only, for CloudFront's public key and key group. No one makes or handles
 * a key by hand.
 *
 * Create: a new pair. Update: the pair already in the secret (its public half again), a new one only when the
 * secret holds none. Delete: nothing (the secret goes with the stack).
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { createSecretsClient } from './adapters/secrets-client.ts';

/** A CloudFormation custom resource request, the fields used here. */
export interface KeyPairRequest {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResponseURL: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties: { readonly SecretId?: string };
}

/** What the resource returns to CloudFormation (`Fn::GetAtt` `PublicKeyPem`). */
export interface KeyPairData {
  readonly PublicKeyPem: string;
}

/** CloudFront's signing keys are 2048-bit RSA. */
export const SIGNING_KEY_BITS = 2048;

/** The public key's SHA-256 fingerprint, short: the resource's physical id (never the key itself). */
export function keyFingerprint(publicKeyPem: string): string {
  return `status-page-key-${createHash('sha256').update(publicKeyPem).digest('hex').slice(0, 16)}`;
}

/** The public half of a private key in PEM, or undefined when `text` is no private key. */
function publicHalf(text: string | undefined): string | undefined {
  if (text === undefined || !text.includes('PRIVATE KEY')) return undefined;
  try {
    return createPublicKey(text).export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    return undefined;
  }
}

/** Makes or finds the key pair for a request; returns the public half and the physical id. */
export async function ensureKeyPair(
  secrets: SecretsManagerClient,
  request: KeyPairRequest,
): Promise<{ physicalId: string; data?: KeyPairData }> {
  const secretId = request.ResourceProperties.SecretId;
  if (request.RequestType === 'Delete') return { physicalId: request.PhysicalResourceId ?? 'none' };
  if (secretId === undefined || secretId === '') throw new Error('the resource has no SecretId property');
  if (request.RequestType === 'Update') {
    const current = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
    const existing = publicHalf(current.SecretString);
    if (existing !== undefined) {
      return { physicalId: keyFingerprint(existing), data: { PublicKeyPem: existing } };
    }
  }
  const pair = generateKeyPairSync('rsa', {
    modulusLength: SIGNING_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: pair.privateKey }));
  return { physicalId: keyFingerprint(pair.publicKey), data: { PublicKeyPem: pair.publicKey } };
}

/** Sends the result to CloudFormation's pre-signed URL (the only way a Lambda-backed resource answers). */
async function respond(
  request: KeyPairRequest,
  result: { status: 'SUCCESS' | 'FAILED'; reason?: string; physicalId: string; data?: KeyPairData },
): Promise<void> {
  const body = JSON.stringify({
    Status: result.status,
    Reason: result.reason ?? 'see the function log',
    PhysicalResourceId: result.physicalId,
    StackId: request.StackId,
    RequestId: request.RequestId,
    LogicalResourceId: request.LogicalResourceId,
    ...(result.data === undefined ? {} : { Data: result.data }),
  });
  const answer = await fetch(request.ResponseURL, {
    method: 'PUT',
    // The URL is signed for an empty content type.
    headers: { 'content-type': '', 'content-length': String(Buffer.byteLength(body)) },
    body,
  });
  if (!answer.ok) throw new Error(`CloudFormation refused the response: HTTP ${answer.status}`);
}

let secrets: SecretsManagerClient | undefined;

/** The Lambda entry: always answers CloudFormation, so a failure fails the deploy instead of hanging it. */
export async function handler(request: KeyPairRequest): Promise<void> {
  secrets ??= createSecretsClient(process.env);
  let result: Parameters<typeof respond>[1];
  try {
    result = { status: 'SUCCESS', ...(await ensureKeyPair(secrets, request)) };
  } catch (error) {
    const e = error as Error;
    // The SDK's messages name the secret and the failure, never its value.
    console.error(`status page key: ${request.RequestType} failed: ${e.name}: ${e.message}`);
    result = {
      status: 'FAILED',
      reason: `${e.name}: ${e.message}`.slice(0, 500),
      physicalId: request.PhysicalResourceId ?? 'failed',
    };
  }
  await respond(request, result);
}
