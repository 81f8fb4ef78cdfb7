/**
 * Every traffic rule written in the documentation works as written against `shieldwatch simulate`
 * (issue 21.2): each rule found in a code block or code span of README.md, CONTRIBUTING.md or docs/ parses
 * with the real parser, and its path reads a value of the type it compares from a body the simulator
 * serves on loopback; every path into that body named anywhere in the docs exists; and the body shown in
 * docs/rules.md has the simulator's shape.
 *
 * And each of those rules does what an operator who pastes it expects (issue 32.3): judged by the real
 * evaluator (backtest's replay) over bodies the simulator serves on loopback, cycle by cycle on a stepped
 * clock, it stays quiet over 10 minutes of normal traffic on 8 networks and triggers on the simulator's attack,
 * then resolves; the "Typical rules" block is a shell command that exports the setting, and its rules do at
 * `run --every 5s` and `--every 2s` what docs/rules.md says they do.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayCount, RuleReplay } from '../../cli/backtest/replay.ts';
import { builtinScenario, type Scenario, type ScenarioName } from '../../cli/simulator/scenario.ts';
import { type Simulator, startSimulator } from '../../cli/simulator/server.ts';
import { lookUp, pathSegments } from '../../lambda/core/rules/dot-path.ts';
import { parseRules, readRules, ruleNetworkProblems } from '../../lambda/core/rules/rules.ts';
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

/** The bodies of `networks`, one request each per cycle, every `everyMs` of a stepped clock, from the simulator. */
async function cyclesOf(
  scenario: Scenario | ScenarioName,
  networks: readonly string[],
  everyMs: number,
  cycles: number,
): Promise<{ at: string; bodies: Record<string, unknown> }[]> {
  let clock = Date.parse('2026-11-23T00:00:00.000Z');
  const simulator = await startSimulator({ scenario, networks, now: () => clock });
  try {
    const out: { at: string; bodies: Record<string, unknown> }[] = [];
    for (let i = 0; i < cycles; i++) {
      const answers = await Promise.all(
        networks.map(async (id) => {
          const answer = await fetch(`${simulator.url}/api/networks/${id}/realtime`, {
            headers: { authorization: `Bearer ${simulator.key}`, accept: 'application/json' },
          });
          return [id, await answer.json()] as const;
        }),
      );
      out.push({ at: new Date(clock).toISOString(), bodies: Object.fromEntries(answers) });
      clock += everyMs;
    }
    return out;
  } finally {
    await simulator.close();
  }
}

/** The replay's count per rule and network after judging every cycle as the monitor does. */
function judge(
  rulesText: string,
  networks: readonly string[],
  cycles: ReadonlyArray<{ at: string; bodies: Record<string, unknown> }>,
): ReplayCount[] {
  const { rules, problems } = parseRules(rulesText);
  expect(problems).toEqual([]);
  const replay = new RuleReplay(rules, networks);
  for (const [i, cycle] of cycles.entries()) {
    replay.apply({
      cycleId: `cycle-${i}`,
      at: cycle.at,
      observations: Object.entries(cycle.bodies).map(([networkId, body]) => ({
        networkId,
        at: cycle.at,
        cycleId: `cycle-${i}`,
        readings: readRules(rules, body),
      })),
    });
  }
  return replay.counts();
}

const triggeredOn = (counts: readonly ReplayCount[], rule: string) =>
  counts.filter((c) => c.rule === rule && c.triggered > 0).map((c) => c.network);

describe('the documentation rules against the simulator: quiet on normal traffic, triggering on its attack', () => {
  const rules = [
    ...new Set(
      docPages().flatMap((page) =>
        codeOf(readFileSync(join(ROOT, page), 'utf8')).flatMap((code) => rulesIn(code)),
      ),
    ),
  ];
  /** Normal traffic differs per network id (edge-3 peaks near 100k pps): eight of them. */
  const NORMAL_NETWORKS = Array.from({ length: 8 }, (_, i) => `edge-${i + 1}`);
  /**
   * The demo's attack (edge-1 from 8 to 20 s, 40 times its traffic; edge-2 from 11 to 17 s, 30 times) 60 s
   * later, so a baseline rule has learned first.
   */
  const demo = builtinScenario('demo');
  const lateAttack: Scenario = {
    name: 'late attack',
    steps: [{ atMs: 0, status: 'active' }],
    attacks: demo.attacks.map((a) => ({ ...a, fromMs: a.fromMs + 60_000, toMs: a.toMs + 60_000 })),
  };
  /** The page's own example of a rule that misses the attack ("`2M` would have missed the attack"). */
  const MEANT_TO_MISS = new Set(['high: traffic.in.pps > 2M']);

  let normal: Awaited<ReturnType<typeof cyclesOf>>;
  let attack: Awaited<ReturnType<typeof cyclesOf>>;
  beforeAll(async () => {
    // 10 minutes at 2 s on 8 networks: five turns of the simulator's 2-minute wave, 2400 requests.
    normal = await cyclesOf('steady', NORMAL_NETWORKS, 2_000, 300);
    attack = await cyclesOf(lateAttack, ['edge-1', 'edge-2'], 2_000, 60);
  }, 60_000);

  it('finds the rules of the pages, the typical ones among them', () => {
    expect(rules.length).toBeGreaterThanOrEqual(7);
    expect(rules).toContain('surge: traffic.in.bps > 3x baseline for 2');
  });

  it.each(rules)('`%s` stays quiet over 10 minutes of normal traffic on 8 networks', (rule) => {
    const counts = judge(rule, NORMAL_NETWORKS, normal);
    expect(counts.filter((c) => c.triggered > 0 || c.end === 'open')).toEqual([]);
    expect(counts.every((c) => c.readings === 300)).toBe(true);
  });

  it.each(rules.filter((rule) => !MEANT_TO_MISS.has(rule)))(
    '`%s` triggers on the attack and resolves after it',
    (rule) => {
      const counts = judge(rule, ['edge-1', 'edge-2'], attack);
      expect(counts.some((c) => c.triggered > 0)).toBe(true);
      expect(counts.filter((c) => c.end === 'open')).toEqual([]);
    },
  );

  describe('the "Typical rules" block of docs/rules.md, pasted', () => {
    const page = readFileSync(join(ROOT, 'docs/rules.md'), 'utf8');
    const section = page.slice(
      page.indexOf('\n## Typical rules\n'),
      page.indexOf('\n## How a rule is judged'),
    );
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

    it('exports SHIELDWATCH_RULES: a command started after it sees the four rules', () => {
      const seen = execFileSync(
        'bash',
        ['-c', `${block}\n"$NODE" -e 'process.stdout.write(process.env.SHIELDWATCH_RULES ?? "(not set)")'`],
        { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NODE: process.execPath }, encoding: 'utf8' },
      );
      const parsed = parseRules(seen);
      expect(parsed.problems).toEqual([]);
      expect(parsed.rules.map((r) => r.name)).toEqual(['pps', 'dropped', 'attack', 'surge']);
    });

    it.each([
      // interval, cycles, which rules trigger on which networks of the demo's attack (docs/rules.md says so)
      [5_000, 12, { pps: ['edge-1'], dropped: ['edge-1'], attack: ['edge-1', 'edge-2'], surge: [] }],
      [
        2_000,
        30,
        { pps: ['edge-1', 'edge-2'], dropped: ['edge-1', 'edge-2'], attack: ['edge-1', 'edge-2'], surge: [] },
      ],
    ])(
      'at run --every %i ms against the demo scenario: as the page says',
      async (everyMs, cycles, expected) => {
        const text = execFileSync('bash', ['-c', `${block}\nprintf %s "$SHIELDWATCH_RULES"`], {
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
          encoding: 'utf8',
        });
        const counts = judge(
          text,
          ['edge-1', 'edge-2'],
          await cyclesOf('demo', ['edge-1', 'edge-2'], everyMs, cycles),
        );
        for (const [rule, networks] of Object.entries(expected)) {
          expect(triggeredOn(counts, rule), rule).toEqual(networks);
        }
        expect(counts.filter((c) => c.end === 'open')).toEqual([]);
      },
    );
  });
});
