/** Describes an unknown JSON body for people: its structure and where a status might be. Pure. */

const MAX_DEPTH = 6;
const MAX_KEYS = 25;
const MAX_LINES = 80;
const STATUS_WORDS = /(status|state|mode|filter|protect|mitigat|active|enabled)/i;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `array(${value.length})`;
  return typeof value;
}

function sample(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 37)}...` : clean;
}

function safeKey(key: string): string {
  const clean = key.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 37)}...` : clean;
}

/**
 * The structure of a JSON value as indented lines: each key with its type and, for scalars, a sample
 * value. Bounded in depth, keys per object and lines, so any body gives a short answer.
 */
export function describeShape(body: unknown): string[] {
  const lines: string[] = [];
  const walk = (value: unknown, indent: string, depth: number) => {
    if (lines.length >= MAX_LINES) return;
    const isObject = typeof value === 'object' && value !== null;
    if (!isObject) return;
    const entries = Array.isArray(value)
      ? value.slice(0, 1).map((v, i) => [String(i), v] as const)
      : Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]] as const);
    for (const [key, child] of entries.slice(0, MAX_KEYS)) {
      if (lines.length >= MAX_LINES) {
        lines.push(`${indent}...`);
        return;
      }
      const scalar = typeof child !== 'object' || child === null;
      lines.push(`${indent}${safeKey(key)}: ${typeOf(child)}${scalar ? ` ${sample(child)}` : ''}`);
      if (!scalar && depth < MAX_DEPTH) walk(child, `${indent}  `, depth + 1);
    }
    if (entries.length > MAX_KEYS) lines.push(`${indent}... ${entries.length - MAX_KEYS} more keys`);
  };
  if (typeof body !== 'object' || body === null) return [`(the body is a ${typeOf(body)}: ${sample(body)})`];
  walk(body, '', 0);
  return lines.length === 0 ? ['(an empty object)'] : lines;
}

/**
 * Dot paths to string, number or boolean leaves whose key looks like a status (status, state, mode, ...),
 * nearest first: candidates for the status path setting.
 */
export function suggestStatusPaths(body: unknown, limit = 5): string[] {
  const found: Array<{ path: string; depth: number }> = [];
  const walk = (value: unknown, path: string[], depth: number) => {
    if (depth > MAX_DEPTH || typeof value !== 'object' || value === null || found.length >= 50) return;
    const keys = Array.isArray(value) ? (value.length > 0 ? ['0'] : []) : Object.keys(value).slice(0, 100);
    for (const key of keys) {
      if (key.includes('.') || key === '') continue;
      const child = (value as Record<string, unknown>)[key];
      const next = [...path, key];
      const scalar = typeof child === 'string' || typeof child === 'number' || typeof child === 'boolean';
      if (scalar && STATUS_WORDS.test(key)) found.push({ path: next.join('.'), depth });
      else walk(child, next, depth + 1);
    }
  };
  walk(body, [], 0);
  return found
    .sort((a, b) => a.depth - b.depth)
    .slice(0, limit)
    .map((f) => f.path);
}
