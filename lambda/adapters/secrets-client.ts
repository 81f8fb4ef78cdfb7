import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AWS_HTTP_OPTIONS, clientDefaults, type Env } from './aws-clients.ts';

/** The Secrets Manager client (the API key, the acknowledge links' signing key). */
export function createSecretsClient(env: Env): SecretsManagerClient {
  return new SecretsManagerClient({
    ...clientDefaults(env, 'secretsmanager'),
    requestHandler: AWS_HTTP_OPTIONS,
  });
}
