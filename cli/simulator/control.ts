/** The simulator's control endpoint: read the filter status served, hold one by hand, give it back. */
import type http from 'node:http';
import { type Answer, json, readSmallBody, send, unauthorized } from './http.ts';

/**
 * The simulator's control endpoint, behind the same Bearer key as the API: `GET` answers
 * `{"status", "held", "scenario", "started"}`, `POST` with `{"status": "TEXT"}` holds that filter status until
 * a `POST` with `{"status": null}` gives the status back to the scenario.
 */
export const CONTROL_PATH = '/simulator/status';

/** Longest status the control endpoint accepts, characters. */
export const MAX_HELD_STATUS_LENGTH = 200;

/** Largest control request body read, bytes. */
const MAX_CONTROL_BODY_BYTES = 4096;

/** Why a status cannot be held, or `undefined` when it can. */
export function heldStatusProblem(status: unknown): string | undefined {
  if (typeof status !== 'string') return 'status must be a string (or null to give it back to the scenario)';
  if ([...status].length > MAX_HELD_STATUS_LENGTH) {
    return `status must be at most ${MAX_HELD_STATUS_LENGTH} characters`;
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(status)) return 'status must not hold control characters';
  return undefined;
}

/** What the control endpoint needs of the running simulator. */
export interface ControlTarget {
  /** Whether an `Authorization` header carries the simulator's key. */
  authorized(header: string | undefined): boolean;
  /** Holds `status`, or gives it back to the scenario with `undefined`. */
  setStatus(status: string | undefined): void;
  /** The `GET` answer: the status served, whether held, the scenario, whether started. */
  answer(): Answer;
}

/** The control endpoint: no faults, no scenario clock, the same Bearer check as the API. */
export async function handleControl(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  simulator: ControlTarget,
): Promise<void> {
  const { authorized, setStatus } = simulator;
  const controlAnswer = simulator.answer;
  if (!authorized(req.headers.authorization)) return send(res, unauthorized());
  if (req.method === 'GET') return send(res, controlAnswer());
  if (req.method !== 'POST') {
    return send(
      res,
      json(405, { error: 'method_not_allowed', message: 'GET or POST' }, undefined, { allow: 'GET, POST' }),
    );
  }
  const text = await readSmallBody(req, MAX_CONTROL_BODY_BYTES);
  let body: unknown;
  try {
    body = text === undefined ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, 'status')) {
    return send(
      res,
      json(400, {
        error: 'bad_request',
        message: `send JSON {"status": "TEXT"} (at most ${MAX_CONTROL_BODY_BYTES} bytes), or {"status": null}`,
      }),
    );
  }
  const status = (body as { status: unknown }).status;
  const problem = status === null ? undefined : heldStatusProblem(status);
  if (problem !== undefined) return send(res, json(400, { error: 'bad_request', message: problem }));
  setStatus(status === null ? undefined : (status as string));
  send(res, controlAnswer());
}
