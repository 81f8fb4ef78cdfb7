import { describe, expect, it } from 'vitest';
import {
  ACK_TOKEN_MAX_CHARS,
  ACK_TOKEN_MAX_TTL_MS,
  ackKey,
  signAckToken,
  verifyAckToken,
} from '../../lambda/core/ack/ack-token.ts';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const HOUR = 3_600_000;
const current = ackKey('c'.repeat(20) + 'current-signing-key-0123456789');
const previous = ackKey('p'.repeat(20) + 'previous-signing-key-012345678');
const INCIDENT = 'flood@2026-11-22T09:58:00.000Z';

describe('acknowledge tokens', () => {
  it('a token verifies for its incident, with its expiry, and is URL-safe', () => {
    // Prepare
    const token = signAckToken(INCIDENT, current, NOW, 2 * HOUR);
    // Act
    const check = verifyAckToken(token, [current], NOW + HOUR);
    // Assess
    expect(check).toEqual({
      ok: true,
      claim: { incident: INCIDENT, expiresAtMs: NOW + 2 * HOUR },
      keyId: current.id,
    });
    expect(token).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(encodeURIComponent(token)).toBe(token);
  });

  it('is bound to its incident: its signature on another incident is refused', () => {
    // Prepare
    const tokenA = signAckToken(INCIDENT, current, NOW);
    const tokenB = signAckToken('other@2026-11-22T09:00:00.000Z', current, NOW);
    const [v, kid, exp, , sigA] = tokenA.split('.');
    const incidentB = tokenB.split('.')[3];
    // Act
    const transplanted = verifyAckToken([v, kid, exp, incidentB, sigA].join('.'), [current], NOW);
    // Assess
    expect(transplanted).toEqual({ ok: false, refusal: 'bad-signature' });
    expect(verifyAckToken(tokenB, [current], NOW)).toMatchObject({
      ok: true,
      claim: { incident: 'other@2026-11-22T09:00:00.000Z' },
    });
  });

  it.each([
    ['at its expiry', 2 * HOUR, 'expired'],
    ['after it', 2 * HOUR + 1, 'expired'],
    ['a week later', ACK_TOKEN_MAX_TTL_MS + 2 * HOUR, 'expired'],
  ])('is refused %s', (_when, later, refusal) => {
    const token = signAckToken(INCIDENT, current, NOW, 2 * HOUR);
    expect(verifyAckToken(token, [current], NOW + later)).toEqual({ ok: false, refusal });
  });

  it('is accepted one second before it expires', () => {
    const token = signAckToken(INCIDENT, current, NOW, 2 * HOUR);
    expect(verifyAckToken(token, [current], NOW + 2 * HOUR - 1000).ok).toBe(true);
  });

  it('lives at most 7 days: a longer life is refused when signing and when verifying', () => {
    expect(() => signAckToken(INCIDENT, current, NOW, ACK_TOKEN_MAX_TTL_MS + 1)).toThrow(RangeError);
    expect(() => signAckToken(INCIDENT, current, NOW, 0)).toThrow(RangeError);
    // A token signed by our key "in the future" (a clock far ahead) claims more than 7 days from now.
    const token = signAckToken(INCIDENT, current, NOW + 10 * HOUR, ACK_TOKEN_MAX_TTL_MS);
    expect(verifyAckToken(token, [current], NOW)).toEqual({ ok: false, refusal: 'too-long-lived' });
  });

  it.each([
    ['the expiry', 2],
    ['the incident', 3],
    ['the signature', 4],
    ['the key id', 1],
  ])('is refused when one character of %s changes', (_part, field) => {
    // Prepare
    const token = signAckToken(INCIDENT, current, NOW);
    const parts = token.split('.');
    const text = parts[field]!;
    // Change a middle character (the last one of base64url may carry padding bits).
    const at = Math.floor(text.length / 2);
    const swapped = text[at] === 'a' ? 'b' : 'a';
    parts[field] = text.slice(0, at) + swapped + text.slice(at + 1);
    // Act
    const check = verifyAckToken(parts.join('.'), [current], NOW);
    // Assess
    expect(check.ok).toBe(false);
  });

  it('refuses a signature spelt with different padding bits (one token, one spelling)', () => {
    const token = signAckToken(INCIDENT, current, NOW);
    const last = token.at(-1)!;
    // 43 base64url characters hold 256 bits + 2 padding bits: the alphabet neighbour differs in those only.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const index = alphabet.indexOf(last);
    const twin = alphabet[index ^ 1]!;
    expect(verifyAckToken(token.slice(0, -1) + twin, [current], NOW)).toEqual({
      ok: false,
      refusal: 'bad-signature',
    });
  });

  it('survives a rotation: a link signed with the previous key verifies while that key is kept', () => {
    // Prepare
    const old = signAckToken(INCIDENT, previous, NOW);
    const fresh = signAckToken(INCIDENT, current, NOW);
    // Act / Assess: after the rotation both are accepted (AWSCURRENT and AWSPREVIOUS) ...
    expect(verifyAckToken(old, [current, previous], NOW + HOUR)).toMatchObject({
      ok: true,
      keyId: previous.id,
    });
    expect(verifyAckToken(fresh, [current, previous], NOW + HOUR)).toMatchObject({
      ok: true,
      keyId: current.id,
    });
    // ... and once the previous key is gone, its links are refused.
    expect(verifyAckToken(old, [current], NOW + HOUR)).toEqual({ ok: false, refusal: 'unknown-key' });
  });

  it('a key id names the key without revealing it, the same secret always the same id', () => {
    expect(current.id).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(current.id).not.toBe(previous.id);
    expect(ackKey('c'.repeat(20) + 'current-signing-key-0123456789').id).toBe(current.id);
    expect(() => ackKey('short')).toThrow(/at least 32 bytes/);
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not-a-token'],
    ['another version', signAckToken(INCIDENT, current, NOW).replace(/^a1\./, 'a2.')],
    ['too long', `a1.${current.id}.zzzz.${'A'.repeat(ACK_TOKEN_MAX_CHARS)}.${'A'.repeat(43)}`],
    ['a field missing', signAckToken(INCIDENT, current, NOW).split('.').slice(0, 4).join('.')],
    ['a space', ` ${signAckToken(INCIDENT, current, NOW)}`],
    ['not a string', 42 as unknown as string],
  ])('refuses a malformed token: %s', (_name, token) => {
    expect(verifyAckToken(token, [current], NOW)).toEqual({ ok: false, refusal: 'malformed' });
  });

  it('keeps any incident id exactly, up to 255 characters', () => {
    const id = `rule-ü/${'x'.repeat(240)}@Z`.slice(0, 255);
    const token = signAckToken(id, current, NOW);
    expect(token.length).toBeLessThanOrEqual(ACK_TOKEN_MAX_CHARS);
    expect(verifyAckToken(token, [current], NOW)).toMatchObject({ ok: true, claim: { incident: id } });
  });
});
