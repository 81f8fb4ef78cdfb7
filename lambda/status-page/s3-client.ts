/** The S3 client of the status page publisher. */
import { S3Client } from '@aws-sdk/client-s3';
import { AWS_HTTP_OPTIONS } from '../adapters/aws-clients.ts';
import { isLoopbackHost } from '../config.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * An S3 client with the monitor's time-outs. The SDK honours `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` itself;
 * with one configured, objects are addressed by path (a local S3 such as moto_server has no bucket host
 * names), and on this machine without credentials placeholder ones are used, as for the other clients.
 */
export function createS3Client(env: Env): S3Client {
  const endpoint = env['AWS_ENDPOINT_URL_S3'] ?? env['AWS_ENDPOINT_URL'];
  let local = false;
  try {
    local = endpoint !== undefined && isLoopbackHost(new URL(endpoint).hostname);
  } catch {
    local = false;
  }
  const region = env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? (local ? 'us-east-1' : undefined);
  const credentials =
    env['AWS_ACCESS_KEY_ID'] !== undefined || env['AWS_PROFILE'] !== undefined || !local
      ? {}
      : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  return new S3Client({
    ...(region === undefined ? {} : { region }),
    ...credentials,
    forcePathStyle: endpoint !== undefined,
    requestHandler: AWS_HTTP_OPTIONS,
  });
}
