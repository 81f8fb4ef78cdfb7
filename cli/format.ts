/** Output helpers of the CLI: time arguments, aligned tables, CSV, colour. */
import { parseDuration } from '../lambda/core/duration.ts';

/**
 * Parses a `--since` / `--until` value: a duration counted back from `nowMs` (`90s`, `30m`, `24h`, `7d`,
 * `2w`) or an ISO-8601 date or date-time. Returns an ISO-8601 UTC string, or throws with a clear message.
 */
export function parseTimeArg(option: string, value: string, nowMs: number): string {
  const relativeMs = parseDuration(value);
  if (relativeMs !== undefined) return new Date(nowMs - relativeMs).toISOString();
  if (/^\d{4}-\d{2}-\d{2}/.test(value.trim())) {
    const ms = Date.parse(value.trim());
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  throw new UsageError(
    `${option} must be a duration like 90s, 30m, 24h, 7d, 2w or an ISO date (got "${value}")`,
  );
}

/** Parses a positive whole number option. */
export function parseCount(option: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000) {
    throw new UsageError(`${option} must be a whole number from 1 to 1000000 (got "${value}")`);
  }
  return Number(value);
}

/** A mistake in the command line: exit 2 with the message and a hint to `--help`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Output formats of `history` and `events`. */
export type Format = 'table' | 'json' | 'csv';

export function parseFormat(value: string | undefined): Format {
  const format = value ?? 'table';
  if (format !== 'table' && format !== 'json' && format !== 'csv') {
    throw new UsageError(`--format must be table, json or csv (got "${format}")`);
  }
  return format;
}

/** Whether to colour output: only on a terminal, and never with NO_COLOR set. */
export function useColour(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return stream.isTTY === true && (env['NO_COLOR'] ?? '') === '' && env['TERM'] !== 'dumb';
}

/** ANSI colours that become no-ops when colour is off. */
export function palette(enabled: boolean) {
  const wrap = (code: number) => (text: string) => (enabled ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { red: wrap(31), green: wrap(32), yellow: wrap(33), dim: wrap(2), bold: wrap(1) };
}

/** Display width of text, ignoring ANSI colour codes. */
function width(text: string): number {
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
}

/**
 * Characters of stored text a terminal must not be handed as they are: controls (they move the cursor,
 * break lines, start escape sequences), invisible format characters (zero-width, the bidirectional marks,
 * embeddings, overrides and isolates U+200E-200F, U+061C, U+202A-202E, U+2066-2069, which reorder what
 * follows them on the line), line and paragraph separators, and spaces other than U+0020.
 */
const HIDDEN_IN_OUTPUT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}]/gu;

/** `<U+202E>`: the code point, four to six upper-case hex digits. */
function codePointEscape(char: string): string {
  return `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Stored text made safe to print (docs/cli.md, Output): each control, invisible format character (the
 * bidirectional overrides and isolates among them) and unusual space shown as a visible escape such as
 * `<U+202E>`, as the alert texts show them, so that a hostile value can neither move the cursor, break a
 * line nor reorder the rest of the line. Plain spaces stay.
 */
export function printable(text: string): string {
  return text.replace(HIDDEN_IN_OUTPUT, (char) => (char === ' ' ? char : codePointEscape(char)));
}

/**
 * JSON text for the terminal: `JSON.stringify` leaves format characters, C1 controls and separators as they
 * are, so each is written as its `\uXXXX` escape, which any JSON reader reads back as the same character.
 */
export function printableJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? 'null').replace(HIDDEN_IN_OUTPUT, (char) =>
    char === ' ' || char === '\n'
      ? char
      : Array.from(
          { length: char.length },
          (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`,
        ).join(''),
  );
}

/** An aligned text table: a header row, then rows; cells are made printable. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - width(cell))))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** RFC 4180 CSV with a header row; hidden characters in a cell shown as `<U+XXXX>` ({@link printable}). */
export function renderCsv(
  headers: readonly string[],
  rows: readonly (readonly (string | number | boolean | undefined)[])[],
): string {
  const cell = (value: string | number | boolean | undefined) => {
    if (value === undefined) return '';
    // Line breaks and tabs are kept (quoted below); other hidden characters escaped as in a table.
    const text = String(value).replace(HIDDEN_IN_OUTPUT, (char) =>
      /[ \t\r\n]/.test(char) ? char : codePointEscape(char),
    );
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [headers, ...rows].map((row) => row.map(cell).join(',')).join('\n');
}

/** Cuts text to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Parses an interval such as `500ms`, `30s`, `5m`, `1h` ({@link parseDuration}) into milliseconds, within [minMs, maxMs]. */
export function parseDurationMs(option: string, value: string, minMs: number, maxMs: number): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < minMs || ms > maxMs) {
    throw new UsageError(
      `${option} must be a duration like 30s, 5m or 1h from ${minMs / 1000}s to ${maxMs / 1000}s (got "${value}")`,
    );
  }
  return ms;
}
