/**
 * The documentation's relative links resolve (issue 21.2): every `[text](target)` in README.md,
 * CONTRIBUTING.md and docs/ that is not a web address names a file that exists, and its `#anchor` a heading
 * of that file as GitHub slugs it. The README stays short (at most 300 lines: issue 21.1).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, PROJECT_ROOT as ROOT } from '../fixtures/doc-pages.ts';

/** The text outside fenced code blocks and inline code spans, where Markdown links live. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, duplicates numbered as GitHub does (`-1`, `-2`, ...). */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The relative link targets of a page (web addresses left out). */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the documentation', () => {
  const pages = docPages();

  it('has the pages by reader that the README links', () => {
    // Assess
    expect(pages).toEqual(
      expect.arrayContaining([
        'docs/alerts.md',
        'docs/rules.md',
        'docs/channels.md',
        'docs/silences.md',
        'docs/report.md',
        'docs/deploy.md',
        'docs/cost.md',
        'docs/design/cycle.md',
        'docs/design/exactly-once.md',
        'docs/design/storage.md',
        'docs/design/rule-state.md',
      ]),
    );
  });

  it.each(pages)('%s: every relative link names a file that exists and a heading it has', (page) => {
    // Prepare
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];

    // Act
    for (const target of links(text)) {
      const [file = '', anchor] = target.split('#');
      const path = file === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(file));
      if (!existsSync(path) || relative(ROOT, path).startsWith('..')) {
        broken.push(`${target}: no such file`);
      } else if (anchor !== undefined && !anchors(readFileSync(path, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, path)}`);
      }
    }

    // Assess
    expect(broken).toEqual([]);
  });

  it("the README is the operator's page: at most 300 lines, with a table of contents", () => {
    // Prepare
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

    // Assess
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toMatch(/^## Contents$/m);
  });

  it('slugs headings as GitHub does', () => {
    // Assess
    expect(slug('The `sqs` document')).toBe('the-sqs-document');
    expect(slug('Traffic rules: where rule state lives')).toBe('traffic-rules-where-rule-state-lives');
    expect(slug('Monthly cost, 10 networks every minute')).toBe('monthly-cost-10-networks-every-minute');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });
});
