/** The README's configuration and context tables agree with the settings catalogue (lambda/settings.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_ENV_NAMES, SETTINGS } from '../../lambda/settings.ts';
import { CONTEXT_KEYS } from '../../lib/context.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The first-column names of the table rows under a heading, up to the next heading. */
function tableNames(heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no heading ${heading}`);
  const end = readme.slice(start + heading.length + 2).search(/\n#{2,3} /);
  const section = readme.slice(start, end < 0 ? undefined : start + heading.length + 2 + end);
  return [...section.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((match) => match[1]!);
}

describe('the settings catalogue and the README', () => {
  it('the configuration table lists every setting of the catalogue, and nothing else', () => {
    // Act
    const documented = tableNames('## Configuration');

    // Assess
    expect([...documented].sort()).toEqual([...SETTING_ENV_NAMES].sort());
  });

  it('the context table lists every context key of the catalogue, and the stack reads each', () => {
    // Prepare
    const keys = Object.values(SETTINGS).flatMap((spec) => ('context' in spec ? [spec.context] : []));

    // Act
    const documented = tableNames('### Deploy');

    // Assess
    expect(keys.length).toBeGreaterThan(5);
    expect(keys.filter((key) => !documented.includes(key))).toEqual([]);
    expect(keys.filter((key) => !(CONTEXT_KEYS as readonly string[]).includes(key))).toEqual([]);
  });
});
