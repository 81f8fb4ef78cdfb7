/**
 * The store's clock as its answers tell it (docs/design/cycle.md, Clocks): every DynamoDB answer carries an HTTP `Date`
 * header (AWS, dynalite and the embedded store alike), which the CLI compares with its own clock before it
 * runs a cycle. The Lambda's clock is trusted and does not check.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { clockSkewProblem } from '../core/clock.ts';
import { KEY } from './table-schema.ts';

/** What one answer told about the store's clock. */
interface ClockSample {
  /** The store's time minus this process's clock, ms (negative: this clock is ahead). */
  readonly offsetMs: number;
}

/** Thrown when this process's clock is too far off the store's to run a cycle: nothing was written. */
export class ClockSkewError extends Error {
  override readonly name = 'ClockSkewError';
  constructor(
    message: string,
    /** The store's time minus this process's clock, ms. */
    readonly offsetMs: number,
  ) {
    super(message);
  }
}

const MIDDLEWARE_NAME = 'shieldwatchStoreClock';

/**
 * Reads the store's time from the `Date` header of its answers to a DynamoDB client, against `now` (the
 * clock the cycles use). The header counts whole seconds, so a sample is taken as the middle of its second
 * against the middle of the request: good to about half a second plus half the round trip.
 */
export class StoreClock {
  private last: ClockSample | undefined;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly table: string,
    now: () => number,
  ) {
    // Inside the deserializer (its step, lowest priority): every answer is seen raw, an error answer (4xx)
    // as well as a success; and each attempt of a retried call.
    client.middlewareStack.add(
      (next) => async (args) => {
        const sentAt = now();
        const out = await next(args);
        const date = (out.response as { headers?: Record<string, string | undefined> }).headers?.['date'];
        const storeMs = date === undefined ? Number.NaN : Date.parse(date);
        if (Number.isFinite(storeMs)) this.last = { offsetMs: storeMs + 500 - (sentAt + now()) / 2 };
        return out;
      },
      { step: 'deserialize', priority: 'low', name: MIDDLEWARE_NAME, override: true },
    );
  }

  /**
   * Asks the store for its time with one small read (the monitor state's key only) and returns the store's
   * time minus this clock, or undefined when its answers carry no `Date` header.
   */
  async offsetMs(signal?: AbortSignal): Promise<number | undefined> {
    this.last = undefined;
    await this.client.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { pk: { S: KEY.state }, sk: { S: KEY.stateSort } },
        ProjectionExpression: 'pk',
      }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    return this.lastSample()?.offsetMs;
  }

  /** The sample the last answer gave (set by the middleware while a call runs). */
  private lastSample(): ClockSample | undefined {
    return this.last;
  }

  /**
   * Throws {@link ClockSkewError} when this clock is further off the store's than tolerated
   * (`CLOCK_SKEW_TOLERANCE_MS`); a store that tells no time is not checked.
   */
  async check(signal?: AbortSignal): Promise<void> {
    const offset = await this.offsetMs(signal);
    if (offset === undefined) return;
    const problem = clockSkewProblem(offset);
    if (problem !== undefined) throw new ClockSkewError(problem, offset);
  }
}
