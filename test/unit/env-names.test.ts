import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The TypeScript files under a folder of the project, recursively, relative to the project root. */
function sources(folder: string): string[] {
  return readdirSync(`${root}${folder}`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${folder}/${file}`);
}

describe('env names', () => {
  it('are spelled in lambda/settings.ts alone within lambda/ and lib/, comments included', () => {
    // Prepare
    const files = [...sources('lambda'), ...sources('lib')];

    // Act
    const spelled = files.filter((file) => /SHIELDWATCH_[A-Z]/.test(readFileSync(`${root}${file}`, 'utf8')));

    // Assess
    expect(files).toContain('lambda/core/detect/status.ts');
    expect(spelled).toEqual(['lambda/settings.ts']);
  });
});
