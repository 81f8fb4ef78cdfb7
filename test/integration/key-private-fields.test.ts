/**
 * Why the two classes that hold the API key keep their fields `#private` (elsewhere the convention is
 * TypeScript `private`): runtime privacy keeps the key out of `util.inspect`, `console.log` and
 * `JSON.stringify` of the object, which a TypeScript-private field would show.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { redactorFor } from '../../lambda/adapters/key-redaction.ts';
import { ProtectionApiClient } from '../../lambda/adapters/protection-api.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

/** Distinctive, so a leak is found by a plain substring search. */
const KEY = 'sk-live-DISTINCTIVE-private-0a1b2c3d';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Every way an object is commonly shown: inspected (hidden properties too), as console.log does, and as JSON. */
function shown(value: object): string[] {
  return [inspect(value, { showHidden: true, depth: 10 }), inspect(value), JSON.stringify(value)];
}

describe('objects holding the API key', () => {
  it('show nothing of it: the API client after a request has cached the key and its headers', async () => {
    // Prepare
    const api: FakeApi = await startFakeApi({ key: KEY });
    cleanups.push(() => api.close());
    const client = new ProtectionApiClient({
      baseUrl: api.url,
      apiKey: async () => KEY,
      timeoutMs: 1000,
      maxBodyBytes: 64 * 1024,
      concurrency: 1,
      retries: 0,
    });
    cleanups.push(() => client.close());

    // Act
    const answer = await client.getUser();

    // Assess
    expect(answer.ok).toBe(true);
    for (const text of shown(client)) expect(text).not.toContain(KEY);
    for (const text of shown(client)) expect(text).toContain('requests');
  });

  it('show nothing of it: the key redactor', () => {
    // Act
    const redactor = redactorFor(KEY);

    // Assess: the key is held folded (code units), so nothing short of an empty object proves it hidden.
    expect(redactor.text(`before ${KEY} after`)).toBe('before [REDACTED] after');
    expect(shown(redactor)).toEqual(['FragmentRedactor {}', 'FragmentRedactor {}', '{}']);
  });
});
