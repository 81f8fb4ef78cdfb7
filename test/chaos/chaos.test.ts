import { describe, expect, it } from 'vitest';
import { runChaos } from './chaos.ts';

const asAttribute = (t: string) => t.replace(/(^|>)(?=>|$)/g, '$1(empty)');

/** `npm run test:chaos`: several seeds, hundreds of cycles each. A failure names its seed to replay it. */
describe('chaos', () => {
  it.each([1, 2, 3, 42, 20261122])(
    'seed %i: every real transition alerted exactly once, nothing from noise, nothing missing',
    async (seed) => {
      // Act
      const report = await runChaos({ cycles: 400, seed });

      // Assess
      console.log(
        `seed ${seed}: ${report.cycles} cycles, ${report.expected.length} transitions, ${report.publishAttempts} publish attempts (${report.publishFailures} failed), ${report.crashes} crashes, ${report.ms} ms`,
      );
      expect(report.alerted).toEqual(report.expected.map(asAttribute));
      expect(report.events).toEqual(report.expected);
      expect(report.filterSnapshots).toBe(report.cycles);
      expect(report.networkSnapshots).toBe(report.cycles * report.networks);
    },
  );

  it('a long SNS outage with a flapping status: every transition waits (most out of the state item) and is then sent once, in order', async () => {
    // Act
    const report = await runChaos({ cycles: 400, seed: 7, changeRate: 0.5, outage: [20, 380] });

    // Assess
    console.log(
      `long outage: ${report.cycles} cycles, ${report.expected.length} transitions, ${report.ms} ms`,
    );
    expect(report.expected.length).toBeGreaterThan(100);
    expect(report.alerted).toEqual(report.expected.map(asAttribute));
    expect(report.events).toEqual(report.expected);
    expect(report.filterSnapshots).toBe(report.cycles);
  });
});
