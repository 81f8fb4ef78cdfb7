/**
 * The full sizes run somewhere: every test file with a quick and a full size (it imports test/scale.ts) is in
 * `npm run test:slow` (test/slow-files.ts, vitest.slow.config.ts), and that suite runs nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SLOW_FILES } from '../slow-files.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the slow suite', () => {
  it('lists exactly the test files that have a full size', () => {
    // Prepare
    const sized = testFiles('test').filter((file) =>
      /from '(\.\.\/)+scale\.ts'/.test(readFileSync(join(ROOT, file), 'utf8')),
    );

    // Assess
    expect(sized.length).toBeGreaterThan(0);
    expect([...SLOW_FILES].sort()).toEqual(sized.sort());
  });
});
