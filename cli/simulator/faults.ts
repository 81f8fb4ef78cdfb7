/**
 * The simulator's faults: latency and jitter, 5xx, 429, malformed bodies, hangs and refused keys, drawn per
 * request from a seeded PRNG so that a run is repeatable.
 */
import { type Answer, json, unauthorized } from './http.ts';

/**
 * Fault injection, all off by default. Every request draws its faults from the seeded PRNG; latency applies to
 * every request, the other faults to authorized GETs of the three endpoints (a wrong key is always a 401, an
 * unknown path always a 404), in this order of precedence: hang, 401, 429, 5xx, malformed.
 */
export interface Faults {
  /** Delay before every answer, ms. @default 0 */
  latencyMs?: number;
  /** Extra random delay, uniform in [0, jitterMs), ms. @default 0 */
  jitterMs?: number;
  /** Share of requests answered with a 5xx (500, 502 or 503), in [0, 1]. @default 0 */
  errorRate?: number;
  /** Share of requests answered with a 429 and `Retry-After`, in [0, 1]. @default 0 */
  rateLimitRate?: number;
  /** `Retry-After` of a 429, seconds. @default 1 */
  retryAfterSeconds?: number;
  /** Share of 2xx answers whose body is not JSON (an HTML page) or truncated JSON, in [0, 1]. @default 0 */
  malformedRate?: number;
  /** Share of requests accepted and never answered (until `close()`), in [0, 1]. @default 0 */
  hangRate?: number;
  /** Share of requests refused with a 401 although the key is right, in [0, 1]. @default 0 */
  authFailRate?: number;
}

/** Fault kinds, as counted in {@link SimulatorStats.faults}. */
export type FaultKind = 'hang' | 'authFail' | 'rateLimit' | 'error' | 'malformed';

/** One request's fault decisions; every request draws the same count of numbers, so a seed replays exactly. */
export interface FaultDraw {
  readonly delayMs: number;
  readonly hang: boolean;
  readonly authFail: boolean;
  readonly rateLimit: boolean;
  readonly error: boolean;
  readonly errorStatus: number;
  readonly malformed: boolean;
  readonly truncate: boolean;
}

/** Draws one request's faults; always 8 numbers from `random`, whatever the rates. */
export function drawFaults(faults: Faults, random: () => number): FaultDraw {
  const draws: number[] = [];
  for (let i = 0; i < 8; i++) draws.push(random());
  const hit = (rate: number | undefined, draw: number): boolean => rate !== undefined && draw < rate;
  return {
    delayMs: (faults.latencyMs ?? 0) + (faults.jitterMs ?? 0) * draws[0]!,
    hang: hit(faults.hangRate, draws[1]!),
    authFail: hit(faults.authFailRate, draws[2]!),
    rateLimit: hit(faults.rateLimitRate, draws[3]!),
    error: hit(faults.errorRate, draws[4]!),
    errorStatus: [500, 502, 503][Math.floor(draws[5]! * 3)]!,
    malformed: hit(faults.malformedRate, draws[6]!),
    truncate: draws[7]! < 0.5,
  };
}

/**
 * The fault that answers an authorized request before the API does, in order of precedence hang, 401, 429,
 * 5xx: its kind and answer (none for a hang: the request is never answered), or `undefined` when none hits.
 */
export function faultBeforeAnswer(
  draw: FaultDraw,
  faults: Faults,
): { readonly kind: Exclude<FaultKind, 'malformed'>; readonly answer?: Answer } | undefined {
  if (draw.hang) return { kind: 'hang' };
  if (draw.authFail) return { kind: 'authFail', answer: unauthorized() };
  if (draw.rateLimit) {
    const seconds = Math.round(faults.retryAfterSeconds ?? 1);
    return {
      kind: 'rateLimit',
      answer: json(
        429,
        { error: 'rate_limited', message: 'too many requests', retryAfter: seconds },
        undefined,
        {
          'retry-after': String(seconds),
        },
      ),
    };
  }
  if (draw.error) {
    return {
      kind: 'error',
      answer: json(draw.errorStatus, { error: 'internal_error', message: 'upstream failure' }),
    };
  }
  return undefined;
}

/** A 2xx whose body cannot be used: JSON cut in half, or the HTML page a misconfigured proxy sends. */
export function malformed(answer: Answer, truncate: boolean): Answer {
  if (truncate) {
    // Any proper prefix of a JSON object's text is invalid JSON: the closing brace comes last.
    return { ...answer, body: answer.body.slice(0, Math.max(1, Math.floor(answer.body.length / 2))) };
  }
  return {
    ...answer,
    body: '<html><head><title>Service Unavailable</title></head><body>upstream is starting</body></html>',
    headers: { ...answer.headers, 'content-type': 'text/html; charset=utf-8' },
  };
}

/** Problems with fault options, each naming the option; empty when they are usable. */
export function faultProblems(faults: Faults): string[] {
  const problems: string[] = [];
  for (const name of ['latencyMs', 'jitterMs', 'retryAfterSeconds'] as const) {
    const value = faults[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      problems.push(`faults.${name} must be a number of 0 or more (got ${String(value)})`);
    }
  }
  for (const name of ['errorRate', 'rateLimitRate', 'malformedRate', 'hangRate', 'authFailRate'] as const) {
    const value = faults[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= 1)) {
      problems.push(`faults.${name} must be a number from 0 to 1 (got ${String(value)})`);
    }
  }
  return problems;
}
