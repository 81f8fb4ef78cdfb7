/**
 * What the report's and the hosted page's present read besides the snapshots (CONTRACT §15, §17), on dynalite:
 * the one listing of incidents and the silences, with the occurrences of the maintenance windows declared in
 * configuration (`SHIELDWATCH_MAINTENANCE`) as of the report's time, read with Queries only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { parseMaintenance } from '../../lambda/core/silences/maintenance-config.ts';
import { readPresentSources } from '../../lambda/report/build.ts';
import { presentSilences } from '../../lambda/report/data.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';

describe('readPresentSources (dynalite)', () => {
  let dynamo: LocalDynamo;
  beforeEach(async () => {
    dynamo = await startDynamo();
  });
  afterEach(async () => {
    await dynamo.close();
  });

  it('shows a declared window active now and a stored silence still to start, reading only', async () => {
    // Prepare: a one-off window declared in configuration, 10 minutes into its hour; a silence from tomorrow.
    const nowMs = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const startMs = Math.floor((nowMs - 600_000) / 60_000) * 60_000;
    const declared = parseMaintenance(
      JSON.stringify([{ start: iso(startMs), for: '1h', reason: 'filter firmware' }]),
      nowMs,
      false,
    );
    if (!declared.ok) throw new Error(declared.problems.join('; '));
    await new DynamoSilenceStore(dynamo.client, dynamo.table).put({
      id: 's-nextnext',
      startsAt: iso(nowMs + 86_400_000),
      endsAt: iso(nowMs + 90_000_000),
      pattern: 'network.*',
      createdAt: iso(nowMs),
    });
    dynamo.operations.length = 0;

    // Act
    const sources = await readPresentSources(
      { client: dynamo.client, table: dynamo.table },
      iso(nowMs - 86_400_000),
      {
        nowMs,
        maintenance: declared.requests,
      },
    );
    const present = presentSilences(sources.silences, nowMs);

    // Assess
    expect(present).toEqual([
      expect.objectContaining({
        reason: 'filter firmware',
        pattern: '*',
        active: true,
        startsAt: iso(startMs),
        endsAt: iso(startMs + 3_600_000),
      }),
      expect.objectContaining({ id: 's-nextnext', pattern: 'network.*', active: false }),
    ]);
    expect(sources.incidents).toEqual([]);
    expect(new Set(dynamo.operations)).toEqual(new Set(['Query']));
  });
});
