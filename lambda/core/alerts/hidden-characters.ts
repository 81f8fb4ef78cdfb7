/**
 * Refuses what cannot be seen in a URL or an id taken from configuration. URL parsers drop tabs and newlines
 * anywhere and control characters at the ends (WHATWG URL), so `https://api.example.com\n.evil.test` would
 * be read as another host and the key sent there. Pure.
 */

const CONTROL = /\p{Cc}/u;
const FORMAT = /\p{Cf}/u;
const SPACE = /\s/u;

/**
 * Why `value` cannot name a host, resource or id, or undefined when it can: a control character anywhere,
 * an invisible formatting character (zero-width, bidirectional override, ...) anywhere, or whitespace
 * between its first and last visible characters. Surrounding spaces are left to the caller, which trims
 * them. The message names the character by code point and position, never the value (it may hold a secret).
 */
export function hiddenCharacterProblem(value: string): string | undefined {
  const chars = [...value];
  const first = chars.findIndex((c) => !SPACE.test(c) || CONTROL.test(c));
  let last = chars.length - 1;
  while (last >= 0 && SPACE.test(chars[last]!) && !CONTROL.test(chars[last]!)) last--;
  for (const [index, char] of chars.entries()) {
    const what = CONTROL.test(char)
      ? 'a control character'
      : FORMAT.test(char)
        ? 'an invisible formatting character'
        : SPACE.test(char) && index > first && index < last
          ? 'whitespace'
          : undefined;
    if (what !== undefined) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      return `contains ${what} (U+${code} at character ${index + 1})`;
    }
  }
  return undefined;
}
