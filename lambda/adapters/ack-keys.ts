/**
 * The acknowledge links' signing keys, read from their Secrets Manager secret (docs/acknowledge.md, Rotating the
 * key): `AWSCURRENT` signs and verifies, `AWSPREVIOUS` (after a rotation, while it exists) still verifies, so a
 * link younger than its expiry keeps working when the key changes. The key never leaves this module but as an
 * {@link AckKey}; it is never logged. Keys are cached for a few minutes across warm invocations.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type AckKey, ackKey } from '../core/ack/ack-token.ts';

/** How long keys read are used before they are read again: a rotation reaches warm functions within it. */
export const ACK_KEYS_CACHE_MS = 5 * 60_000;

/** Reads the current (and previous) signing key of one secret. */
export class AckKeyReader {
  private cached: { readonly keys: readonly AckKey[]; readonly untilMs: number } | undefined;
  private signingCache: { readonly key: AckKey; readonly untilMs: number } | undefined;

  constructor(
    private readonly secrets: SecretsManagerClient,
    private readonly secretId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key that signs new links. */
  async current(): Promise<AckKey> {
    return (await this.keys())[0]!;
  }

  /**
   * The key that signs new links, read alone (`AWSCURRENT`, one call): for the poller, which signs and never
   * verifies. Cached like {@link keys}.
   */
  async signing(): Promise<AckKey> {
    const now = this.now();
    if (this.cached !== undefined && now < this.cached.untilMs) return this.cached.keys[0]!;
    if (this.signingCache !== undefined && now < this.signingCache.untilMs) return this.signingCache.key;
    const key = await this.read('AWSCURRENT');
    if (key === undefined) throw new Error('the acknowledge signing secret has no current value');
    this.signingCache = { key, untilMs: now + ACK_KEYS_CACHE_MS };
    return key;
  }

  /** The keys a link may be signed with: the current one first, then the previous one if there is one. */
  async keys(): Promise<readonly AckKey[]> {
    const now = this.now();
    if (this.cached !== undefined && now < this.cached.untilMs) return this.cached.keys;
    const [current, previous] = await Promise.all([this.read('AWSCURRENT'), this.read('AWSPREVIOUS')]);
    if (current === undefined) throw new Error('the acknowledge signing secret has no current value');
    const keys = previous === undefined || previous.id === current.id ? [current] : [current, previous];
    this.cached = { keys, untilMs: now + ACK_KEYS_CACHE_MS };
    return keys;
  }

  private async read(stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<AckKey | undefined> {
    try {
      const out = await this.secrets.send(
        new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: stage }),
      );
      return out.SecretString === undefined || out.SecretString === '' ? undefined : ackKey(out.SecretString);
    } catch (error) {
      // A secret never rotated has no AWSPREVIOUS version.
      if (stage === 'AWSPREVIOUS' && (error as { name?: string }).name === 'ResourceNotFoundException') {
        return undefined;
      }
      // The SDK's message names the secret and the failure, never its value; a short key says only that.
      throw new Error(`cannot read the acknowledge signing key (${stage}): ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
