/**
 * The compact text of a list of rule values (a run's values, a baseline's window): each number as the 11
 * base64 characters of its 8 bytes (IEEE 754), a boolean as one mark. Any finite double round-trips, and the
 * worst-case size of a list is its length times {@link NUMBER_CHARS}. Used by the rule kinds for their memory
 * and by the rule item codec (`adapters/rule-items.ts`). Pure.
 */

/** Characters of one number in a value list: its 8 bytes (IEEE 754) in base64 without the padding. */
export const NUMBER_CHARS = 11;
const TRUE_MARK = '!';
const FALSE_MARK = '~';

/** A value list as text: each number as 11 base64 characters (its 8 bytes), a boolean as one mark. */
export function encodeValues(values: readonly (number | boolean)[]): string {
  let text = '';
  for (const value of values) {
    if (typeof value === 'boolean') text += value ? TRUE_MARK : FALSE_MARK;
    else {
      const bytes = Buffer.alloc(8);
      bytes.writeDoubleBE(value);
      text += bytes.toString('base64').slice(0, NUMBER_CHARS);
    }
  }
  return text;
}

/** The values of {@link encodeValues}' text; a damaged text yields the values read before the damage. */
export function decodeValues(text: unknown): (number | boolean)[] {
  const values: (number | boolean)[] = [];
  if (typeof text !== 'string') return values;
  for (let i = 0; i < text.length; ) {
    const mark = text[i];
    if (mark === TRUE_MARK || mark === FALSE_MARK) {
      values.push(mark === TRUE_MARK);
      i++;
      continue;
    }
    const chunk = text.slice(i, i + NUMBER_CHARS);
    const bytes = Buffer.from(`${chunk}=`, 'base64');
    if (chunk.length < NUMBER_CHARS || bytes.length !== 8) break;
    const value = bytes.readDoubleBE(0);
    if (!Number.isFinite(value)) break;
    values.push(value);
    i += NUMBER_CHARS;
  }
  return values;
}
