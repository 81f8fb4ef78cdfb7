import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type ApiKeySource, MIN_KEY_LENGTH } from '../config.ts';
import type { ApiKeyProvider } from '../ports.ts';

/** How long a key read from Secrets Manager is reused before it is read again. */
export const SECRET_MAX_AGE_SECONDS = 300;

/**
 * Reads the key from a secret's SecretString: the string itself, or the `apiKey` field of a JSON object.
 * Errors never quote the value.
 */
export function parseSecretValue(secretId: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw new Error(`secret ${secretId} has no SecretString (binary secrets are not supported)`);
  }
  let key = value.trim();
  if (key.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(key);
    } catch {
      throw new Error(`secret ${secretId} looks like JSON but does not parse`);
    }
    const field = (parsed as { apiKey?: unknown } | null)?.apiKey;
    if (typeof field !== 'string') {
      throw new Error(`secret ${secretId} is a JSON object without a string "apiKey" field`);
    }
    key = field.trim();
  }
  if (key === '') throw new Error(`secret ${secretId} is empty: put the API key into it`);
  if (key.length < MIN_KEY_LENGTH) {
    throw new Error(
      `secret ${secretId} holds a key shorter than ${MIN_KEY_LENGTH} characters (value not shown)`,
    );
  }
  if (!/^[\x21-\x7E]+$/.test(key)) {
    throw new Error(`secret ${secretId} holds a key with spaces or non-ASCII characters (value not shown)`);
  }
  return key;
}

/** A key given directly (local use). */
export class StaticApiKey implements ApiKeyProvider {
  constructor(private readonly key: string) {}
  async get(): Promise<string> {
    return this.key;
  }
  invalidate(): void {}
}

/**
 * A key kept in Secrets Manager, read through Powertools Parameters and cached for
 * {@link SECRET_MAX_AGE_SECONDS} across warm invocations; read again at once after the API rejected it.
 */
export class SecretApiKey implements ApiKeyProvider {
  private readonly provider: SecretsProvider;
  private forceFetch = false;

  constructor(
    private readonly secretId: string,
    client?: SecretsManagerClient,
    private readonly maxAgeSeconds = SECRET_MAX_AGE_SECONDS,
  ) {
    this.provider = new SecretsProvider(client === undefined ? {} : { awsSdkV3Client: client });
  }

  async get(): Promise<string> {
    let value: unknown;
    try {
      value = await this.provider.get(this.secretId, {
        maxAge: this.maxAgeSeconds,
        forceFetch: this.forceFetch,
      });
    } catch (error) {
      // The SDK's own error (the cause) names what failed; it never carries the secret's value.
      const cause = ((error as { cause?: unknown }).cause ?? error) as Error;
      throw new Error(
        `cannot read secret ${this.secretId}: ${cause.name}: ${String(cause.message).slice(0, 200)}`,
      );
    }
    try {
      const key = parseSecretValue(this.secretId, value);
      this.forceFetch = false;
      return key;
    } catch (error) {
      // An empty or malformed secret is read again next time: the operator may have fixed it meanwhile.
      this.forceFetch = true;
      throw error;
    }
  }

  invalidate(): void {
    this.forceFetch = true;
  }
}

/** Builds the key provider for a configured source; `env` supplies the key for the `env` source. */
export function createApiKeyProvider(
  source: ApiKeySource,
  env: Readonly<Record<string, string | undefined>>,
  client?: SecretsManagerClient,
): ApiKeyProvider {
  return source.kind === 'secret'
    ? new SecretApiKey(source.secretId, client)
    : new StaticApiKey((env[source.variable] ?? '').trim());
}
