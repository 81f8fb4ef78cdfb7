/**
 * The configuration table (README.md, Configuration) and the context table (docs/deploy.md, Deploy) agree with
 * the settings catalogue (lambda/settings.ts), and the context table also with the keys only the stack reads
 * (lib/context.ts: the channels' from lib/context-channels.ts, the status page's from lib/context-status-page.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_ENV_NAMES, SETTINGS } from '../../lambda/settings.ts';
import { CONTEXT_KEYS } from '../../lib/context.ts';
import { CHANNEL_CONTEXT_KEYS } from '../../lib/context-channels.ts';
import { STATUS_PAGE_CONTEXT_KEYS } from '../../lib/context-status-page.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const deployPage = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');

/** The first-column names of the table rows under a heading, up to the next heading. */
function tableNames(page: string, heading: string): string[] {
  const start = page.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`the page has no heading ${heading}`);
  const end = page.slice(start + heading.length + 2).search(/\n#{2,3} /);
  const section = page.slice(start, end < 0 ? undefined : start + heading.length + 2 + end);
  return [...section.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((match) => match[1]!);
}

describe('the settings catalogue and the documentation', () => {
  it('the configuration table lists every setting of the catalogue, and nothing else', () => {
    // Act
    const documented = tableNames(readme, '## Configuration');

    // Assess
    expect([...documented].sort()).toEqual([...SETTING_ENV_NAMES].sort());
  });

  it('the context table lists every context key of the catalogue, and the stack reads each', () => {
    // Prepare
    const keys = Object.values(SETTINGS).flatMap((spec) => ('context' in spec ? [spec.context] : []));

    // Act
    const documented = tableNames(deployPage, '## Deploy');

    // Assess
    expect(keys.length).toBeGreaterThan(5);
    expect(keys.filter((key) => !documented.includes(key))).toEqual([]);
    expect(keys.filter((key) => !(CONTEXT_KEYS as readonly string[]).includes(key))).toEqual([]);
  });

  it('the context table lists the keys only the stack reads too (channels, status page, ...), and nothing else', () => {
    // Prepare: the stack-only keys live in their own modules, not in the catalogue
    const stackOnly = [...CHANNEL_CONTEXT_KEYS, ...STATUS_PAGE_CONTEXT_KEYS];

    // Act
    const documented = tableNames(deployPage, '## Deploy');

    // Assess
    expect(stackOnly.filter((key) => !(CONTEXT_KEYS as readonly string[]).includes(key))).toEqual([]);
    expect(CONTEXT_KEYS.filter((key) => !documented.includes(key))).toEqual([]);
    expect(documented.filter((key) => !(CONTEXT_KEYS as readonly string[]).includes(key))).toEqual([]);
  });
});
