/**
 * The quiet time in the present of `shieldwatch status` (issue 31.3; CONTRACT §15, §17): of the stored silences
 * (a maintenance window's occurrences come as silences under the window's id), the active one that ends last and
 * the next one to start, in the JSON (`quiet`) and under the filter status in the table, with pattern, end and
 * reason. Without any, the table is what it was.
 */
import { describe, expect, it } from 'vitest';
import { renderText } from '../../cli/status/render.ts';
import { statusReport } from '../../cli/status/report.ts';
import { INITIAL_STATE } from '../../lambda/core/detect/decide.ts';
import type { Silence } from '../../lambda/core/silences/silence-window.ts';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

function silence(id: string, from: number, to: number, fields: Partial<Silence> = {}): Silence {
  return { id, pattern: '*', startsAt: at(from), endsAt: at(to), createdAt: at(-600), ...fields };
}

function report(silences: readonly Silence[]) {
  return statusReport({
    state: { ...INITIAL_STATE, status: 'active', statusSince: at(-90) },
    outbox: [],
    filter: undefined,
    networks: [],
    expected: 'active',
    nowMs: NOW,
    silences,
  });
}

const plain = { stdout: { isTTY: false }, env: {} };

describe('status: the quiet time of the present', () => {
  it.each([
    {
      name: 'none stored: neither',
      silences: [],
      active: null,
      next: null,
    },
    {
      name: 'only ended ones: neither',
      silences: [silence('s-old', -120, -60)],
      active: null,
      next: null,
    },
    {
      name: 'two active: the one that ends last; one to start: next',
      silences: [
        silence('s-short', -10, 30, { pattern: 'network.*' }),
        silence('s-long', -5, 120, { reason: 'filter update' }),
        silence('s-later', 240, 300),
        silence('s-latest', 600, 660),
      ],
      active: {
        id: 's-long',
        status: 'active',
        endsAt: at(120),
        reason: 'filter update',
        remainingMs: 7_200_000,
      },
      next: { id: 's-later', status: 'pending', startsAt: at(240), reason: null },
    },
    {
      name: "a weekly window's occurrences (one id): the one under way, and the next",
      silences: [
        silence('w-weekly', -10_080 - 30, -10_080 + 90),
        silence('w-weekly', -30, 90, { reason: 'weekly filter update' }),
        silence('w-weekly', 10_080 - 30, 10_080 + 90, { reason: 'weekly filter update' }),
      ],
      active: { id: 'w-weekly', endsAt: at(90), reason: 'weekly filter update' },
      next: { id: 'w-weekly', startsAt: at(10_050), endsAt: at(10_170) },
    },
  ])('$name', ({ silences, active, next }) => {
    // Act
    const { quiet } = report(silences);

    // Assess
    if (active === null) expect(quiet.active).toBeNull();
    else expect(quiet.active).toMatchObject(active);
    if (next === null) expect(quiet.next).toBeNull();
    else expect(quiet.next).toMatchObject(next);
  });

  it('the table shows them under the filter status: pattern, end, time left, reason, id', () => {
    // Act
    const text = renderText(
      report([
        silence('s-abcdefgh', -5, 115, { pattern: 'network.*', reason: 'scrubbing test' }),
        silence('s-next', 240, 300),
      ]),
      plain,
    );

    // Assess
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `filter status  "active" (expected)  since ${at(-90)} (for 1h 30m)`,
      '  last seen    never (no filter snapshot stored)',
      `  silenced     network.* until ${at(115)} (1h 55m left), reason: scrubbing test (s-abcdefgh: matching alerts are recorded, not sent)`,
      `  next quiet   * from ${at(240)} until ${at(300)} (s-next)`,
    ]);
    expect(lines[4]).toBe('');
  });

  it('none active or planned: the first lines are as before, no quiet line', () => {
    const lines = renderText(report([silence('s-old', -120, -60)]), plain).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `filter status  "active" (expected)  since ${at(-90)} (for 1h 30m)`,
      '  last seen    never (no filter snapshot stored)',
      '',
    ]);
    expect(lines.join('\n')).not.toMatch(/silenced|next quiet/);
  });
});
