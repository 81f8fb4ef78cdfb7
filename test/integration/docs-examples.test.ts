/**
 * Every traffic rule written in the documentation works as written against `shieldwatch simulate`
 * (issue 21.2): each rule found in a code block or code span of README.md, CONTRIBUTING.md or docs/ parses
 * with the real parser, and its path reads a value of the type it compares from a body the simulator
 * serves on loopback; every path into that body named anywhere in the docs exists; and the body shown in
 * docs/rules.md has the simulator's shape.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../cli/simulator/server.ts';
import { lookUp, pathSegments } from '../../lambda/core/dot-path.ts';
import { parseRules, readRules, ruleNetworkProblems } from '../../lambda/core/rules.ts';
import { docPages, PROJECT_ROOT as ROOT } from '../fixtures/doc-pages.ts';

/** The text of every fenced code block and inline code span of a page. */
function codeOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
  const spans = [...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...spans];
}

/** Rule texts in code: pieces between newlines, `;` and quotes that read `NAME: PATH OP VALUE ...`. */
function rulesIn(code: string): string[] {
  return code
    .split(/[\n;'"]/)
    .map((piece) => piece.trim())
    .filter((piece) => /^[A-Za-z0-9_-]{1,40}: [^\s;<>=!]+ (>=|<=|==|!=|>|<) \S/.test(piece));
}

/** The dot paths of every leaf of a JSON value, e.g. `traffic.in.pps`. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) =>
    leafPaths(inner, prefix === '' ? key : `${prefix}.${key}`),
  );
}

describe('the documentation examples against the simulator', () => {
  let simulator: Simulator;
  let body: unknown;
  const examples = docPages().flatMap((page) =>
    codeOf(readFileSync(join(ROOT, page), 'utf8')).flatMap((code) =>
      rulesIn(code).map((rule) => ({ page, rule })),
    ),
  );

  beforeAll(async () => {
    simulator = await startSimulator();
    const answer = await fetch(`${simulator.url}/api/networks/edge-1/realtime`, {
      headers: { authorization: `Bearer ${simulator.key}`, accept: 'application/json' },
    });
    body = await answer.json();
  });
  afterAll(async () => simulator.close());

  it('finds the rules the pages show', () => {
    // Assess: the grammar page, the backtest walk-through, the README's demo rule and the sqs example
    expect(examples.length).toBeGreaterThanOrEqual(9);
    expect(new Set(examples.map((example) => example.page))).toEqual(
      new Set(['README.md', 'docs/rules.md', 'docs/channels.md']),
    );
  });

  it.each(examples)('$page: `$rule` parses and reads a value from the simulator', ({ rule }) => {
    // Act
    const parsed = parseRules(rule);
    const readings = readRules(parsed.rules, body);

    // Assess
    expect(parsed.problems).toEqual([]);
    expect(ruleNetworkProblems(parsed.rules, simulator.networks)).toEqual([]);
    expect(Object.values(readings)).toEqual([{ kind: 'value', value: expect.anything() }]);
  });

  it('every path into the network body named in the docs is one the simulator serves', () => {
    // Prepare
    const named = docPages().flatMap((page) =>
      codeOf(readFileSync(join(ROOT, page), 'utf8')).flatMap((code) =>
        [...code.matchAll(/\b(?:traffic|dropped|attack)(?:\.[A-Za-z0-9_]+)+/g)].map(
          (m) => `${page}: ${m[0]}`,
        ),
      ),
    );

    // Act: a path the page itself shows as missing (`shieldwatch check`'s `path missing: PATH`, the example of
    // a rule that reads nothing: docs/alerts.md, Blind spots) is meant to be absent
    const shownMissing = (entry: string) => {
      const [page, path] = entry.split(': ') as [string, string];
      return readFileSync(join(ROOT, page), 'utf8').includes(`path missing: ${path} (did you mean `);
    };
    const missing = named.filter(
      (entry) => !lookUp(body, pathSegments(entry.split(': ')[1]!)).found && !shownMissing(entry),
    );

    // Assess
    expect(named.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it("the body docs/rules.md shows has the simulator's shape", () => {
    // Prepare
    const page = readFileSync(join(ROOT, 'docs/rules.md'), 'utf8');
    const shown = JSON.parse(/```json\n([\s\S]*?)```/.exec(page)?.[1] ?? 'null') as unknown;

    // Assess
    expect(leafPaths(shown).sort()).toEqual(leafPaths(body).sort());
  });
});
