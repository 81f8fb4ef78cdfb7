/**
 * Reading one answer of the protection API: its body within the size cap (an error body only for its
 * excerpt, a redirect's never), decoded as strict UTF-8, then classified by the pure `core/detect/answer.ts`, which
 * parses a 2xx body before it has the key scrubbed from it (see `key-redaction.ts`). Bodies are read as they
 * stream, so a large one never sits in memory whole.
 */
import type { Dispatcher } from 'undici';
import { type AnswerResponse, type ClassifiedAnswer, classifyAnswer } from '../core/detect/answer.ts';
import type { KeyRedactor } from './key-redaction.ts';

/** What reading an answer needs to know. */
export interface AnswerReading {
  /** The API's origin, to tell a redirect to it from one elsewhere. */
  readonly origin: string;
  /** A larger 2xx body is refused without being read whole. */
  readonly maxBodyBytes: number;
  /** Removes the key (any fragment, any echo form) from a text, and from a JSON text as JSON. */
  readonly redactor: KeyRedactor;
}

/** How much of a non-2xx body is kept for the error excerpt. */
const EXCERPT_READ_BYTES = 4 * 1024;
/**
 * A non-2xx body up to this size is drained so the connection can be reused; a larger one is cut off,
 * which costs the connection but never the memory.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * Shortest key accepted: keys shorter than `MIN_FRAGMENT_LENGTH` (whose fragments are not scrubbed: they
 * would match ordinary data) are scrubbed where they stand whole, in texts and in the strings of a JSON body
 * (once decoded); a key shorter than this would match ordinary data. The config loader refuses it.
 */
export const MIN_STRUCTURAL_SCRUB_KEY_LENGTH = 4;
/** Invalid UTF-8 in a 2xx body is a contract failure: replacement characters would make different texts equal. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The answer's meaning, with what is known of its body size; throws only when the body stream fails. */
export async function readAnswer(
  data: Dispatcher.ResponseData,
  reading: AnswerReading,
): Promise<ClassifiedAnswer> {
  const { origin, maxBodyBytes, redactor } = reading;
  const { statusCode: status, headers, body } = data;
  const announced = contentLength(headers['content-length']);
  const answer = {
    status,
    origin: origin,
    contentType: headers['content-type'],
    retryAfter: headers['retry-after'],
    location: headers['location'],
  };

  if (status >= 200 && status < 300) {
    if (announced !== undefined && announced > maxBodyBytes) {
      body.destroy();
      return contractFailure(status, `body larger than ${maxBodyBytes} bytes`, announced);
    }
    const read = await readCapped(body, maxBodyBytes);
    if (read === undefined) {
      return contractFailure(status, `body larger than ${maxBodyBytes} bytes`, announced);
    }
    const bodyBytes = read.length;
    let text: string;
    try {
      // Also removes a leading byte order mark.
      text = STRICT_UTF8.decode(read);
    } catch {
      return contractFailure(status, 'body is not valid UTF-8', bodyBytes);
    }
    // Raw: the classifier parses it first and scrubs its strings, so the key never cuts through a number.
    const { response } = classifyAnswer({ ...answer, text, nowMs: Date.now() }, redactor);
    return { response: { ...response, bodyBytes } };
  }

  if (status >= 300 && status < 400) {
    // The body of a redirect may repeat the target with its query: it is drained, never quoted.
    await drain(body, announced);
    return withBytes(classifyAnswer({ ...answer, text: '', nowMs: Date.now() }), announced);
  }

  const raw = await readExcerpt(body, announced);
  // Raw: the classifier scrubs the key before it cuts the excerpt.
  return withBytes(
    classifyAnswer({ ...answer, text: raw.excerpt, nowMs: Date.now() }, redactor),
    announced ?? raw.bytesRead,
  );
}

/** Adds what is known of the body size to a non-2xx failure. */
function withBytes(classified: ClassifiedAnswer, bodyBytes: number | undefined): ClassifiedAnswer {
  return bodyBytes === undefined
    ? classified
    : { ...classified, response: { ...classified.response, bodyBytes } };
}

/** A 2xx whose bytes cannot be used (too large, not UTF-8): decided before there is a text to classify. */
function contractFailure(httpStatus: number, error: string, bodyBytes: number | undefined): ClassifiedAnswer {
  const response: AnswerResponse = { ok: false, errorKind: 'contract', error, httpStatus };
  return { response: bodyBytes === undefined ? response : { ...response, bodyBytes } };
}

/** Reads the whole body if it fits in `max` bytes; otherwise stops (destroying the stream) and returns undefined. */
async function readCapped(body: AsyncIterable<Buffer>, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    // Leaving the loop destroys the stream, so the rest of an oversized body is never read.
    if (total > max) return undefined;
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Keeps the first few KB of an error body for the message; drains a small rest, cuts off a large one.
 * `bytesRead` is set only when the whole body was read.
 */
async function readExcerpt(
  body: Dispatcher.ResponseData['body'],
  announced: number | undefined,
): Promise<{ excerpt: string; bytesRead?: number }> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  let complete = false;
  try {
    if (announced !== undefined && announced > DRAIN_LIMIT_BYTES) {
      for await (const chunk of body) {
        kept.push(chunk);
        keptBytes += chunk.length;
        if (keptBytes >= EXCERPT_READ_BYTES) break;
      }
    } else {
      for await (const chunk of body) {
        total += chunk.length;
        if (keptBytes < EXCERPT_READ_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        if (total > DRAIN_LIMIT_BYTES) break;
      }
      complete = total <= DRAIN_LIMIT_BYTES;
    }
  } catch {
    // The status already says what happened; a broken error body only loses the excerpt.
    complete = false;
  }
  // Raw: the caller scrubs the key before cutting, so no fragment of it survives the cut.
  const excerpt = Buffer.concat(kept, keptBytes).subarray(0, EXCERPT_READ_BYTES).toString('utf8');
  return complete ? { excerpt, bytesRead: total } : { excerpt };
}

/** Discards a small body so the connection stays usable; a large or unannounced-and-long one is cut off. */
async function drain(body: Dispatcher.ResponseData['body'], announced: number | undefined): Promise<void> {
  if (announced !== undefined && announced > DRAIN_LIMIT_BYTES) {
    body.destroy();
    return;
  }
  try {
    await body.dump({ limit: DRAIN_LIMIT_BYTES });
  } catch {
    // Nothing to report: the answer is already decided by its status.
  }
}

function contentLength(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}
