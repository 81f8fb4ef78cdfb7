import { describe, expect, it } from 'vitest';
import { runChaos } from '../chaos/chaos.ts';

/** The quick version of `npm run test:chaos`: one seed, fewer cycles. */
describe('chaos (quick)', () => {
  it('alerts every real transition exactly once, in order, no alert from noise, no snapshot missing', async () => {
    // Act
    const report = await runChaos({ cycles: 120, seed: 20261122 });

    // Assess
    const asAttribute = (t: string) => t.replace(/(^|>)(?=>|$)/g, '$1(empty)');
    expect(report.expected.length).toBeGreaterThan(5);
    expect(report.publishFailures).toBeGreaterThan(0);
    expect(report.crashes).toBeGreaterThan(0);
    expect(report.alerted).toEqual(report.expected.map(asAttribute));
    expect(report.events).toEqual(report.expected);
    expect(report.filterSnapshots).toBe(report.cycles);
    expect(report.networkSnapshots).toBe(report.cycles * report.networks);
  });
});
