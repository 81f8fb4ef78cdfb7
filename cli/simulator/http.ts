/** The simulator's HTTP answers: JSON bodies, the 401, small request bodies, sending. */
import type http from 'node:http';

/** One HTTP answer, before it is sent. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON answer; `requestId` becomes `x-request-id`. */
export function json(
  status: number,
  body: unknown,
  requestId?: string,
  headers: Record<string, string> = {},
): Answer {
  return {
    status,
    body: JSON.stringify(body),
    headers: { ...headers, ...(requestId === undefined ? {} : { 'x-request-id': requestId }) },
  };
}

/** The 401 of a missing, wrong or (as a fault) refused key. */
export function unauthorized(): Answer {
  return json(401, { error: 'unauthorized', message: 'missing or invalid bearer token' }, undefined, {
    'www-authenticate': 'Bearer realm="shieldwatch-simulator", error="invalid_token"',
  });
}

/** A request body of at most `maxBytes`, as UTF-8 text; `undefined` when it is larger or the request fails. */
export function readSmallBody(req: http.IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', () => resolve(undefined));
    req.once('close', () => resolve(undefined));
  });
}

/** Sends `answer` as it is, unless the client has gone. */
export function send(res: http.ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...answer.headers,
    'content-length': String(body.length),
  });
  res.end(body);
}
