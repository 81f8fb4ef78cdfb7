/**
 * How the networks are split across schedules (context `shardSize`) and what each schedule sends.
 * Pure: no CDK, so the split and the size limits are checked at synth time and unit-tested alike.
 */

/** One schedule's share of the polling. */
export interface Shard {
  /** Position of the shard, from 0. */
  readonly index: number;
  /** The network ids this shard polls, a consecutive slice of the context's list. */
  readonly networks: readonly string[];
  /**
   * Whether this shard polls the filter status and owns the monitor state (decisions, alerts): shard 0
   * only, so that one cycle alone decides on the filter.
   */
  readonly pollFilter: boolean;
  /** How many shards there are: every schedule's event says it, so a cycle knows which shards no longer run. */
  readonly count: number;
}

/**
 * Splits the networks, in order, into consecutive slices of at most `shardSize`. Shard 0 also polls the
 * filter status; the others poll their slice only. Without `shardSize` (or with no more networks than it)
 * there is one shard with every network. There is always at least one shard: the filter is always polled.
 */
export function planShards(networks: readonly string[], shardSize?: number): Shard[] {
  if (shardSize !== undefined && !(Number.isInteger(shardSize) && shardSize >= 1)) {
    throw new RangeError(`shardSize must be a positive integer, got ${shardSize}`);
  }
  const size = shardSize ?? Math.max(networks.length, 1);
  const count = Math.max(1, Math.ceil(networks.length / size));
  return Array.from({ length: count }, (_, index) => ({
    index,
    networks: networks.slice(index * size, (index + 1) * size),
    pollFilter: index === 0,
    count,
  }));
}

/** The values Scheduler and CloudFormation fill into a schedule's input. */
export interface ScheduledEventFields {
  readonly account: string;
  readonly region: string;
  readonly executionId: string;
  readonly scheduledTime: string;
  readonly scheduleArn: string;
}

/**
 * The input of one schedule: the shape of an EventBridge "Scheduled Event" (so the handler sees what a
 * scheduled rule would send), plus, for a sharded deployment, the shard's index (which rule items it owns),
 * its networks and whether it polls the filter. Without a shard the function polls the networks of its
 * environment and the filter, as shard 0.
 */
export function scheduledEvent(fields: ScheduledEventFields, shard?: Shard): Record<string, unknown> {
  return {
    version: '0',
    id: fields.executionId,
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: fields.account,
    time: fields.scheduledTime,
    region: fields.region,
    resources: [fields.scheduleArn],
    detail: {},
    ...(shard === undefined
      ? {}
      : {
          shard: shard.index,
          shards: shard.count,
          networks: shard.networks,
          pollFilter: shard.pollFilter,
        }),
  };
}

/**
 * Most characters of one schedule's input. Scheduler's API documents no maximum for a target's input;
 * 8,192 is the limit of an EventBridge rule target's input, kept here as a conservative bound, far below
 * what Lambda accepts as an event.
 */
export const MAX_SCHEDULE_INPUT_CHARS = 8192;

/**
 * Most schedules (shards) in one stack: each is a CloudFormation resource, and a stack holds at most 500,
 * about 25 of which the rest of the monitor takes.
 */
export const MAX_SHARDS = 200;

/**
 * Most characters that all schedule inputs together may take in the template, as it holds them (JSON in a
 * JSON string): CloudFormation accepts templates of at most 1 MB, and the rest of the stack (dashboard,
 * policies, the schedules themselves) needs room.
 */
export const MAX_TEMPLATE_INPUT_CHARS = 600_000;

/** The longest value each field takes once filled in (a GovCloud ARN, a 64-character schedule name). */
const WORST_CASE_FIELDS: ScheduledEventFields = {
  account: '123456789012',
  region: 'xx-xxxxxxxxx-9',
  executionId: '00000000-0000-0000-0000-000000000000',
  scheduledTime: '2000-01-01T00:00:00Z',
  scheduleArn: `arn:aws-us-gov:scheduler:xx-xxxxxxxxx-9:123456789012:schedule/default/${'x'.repeat(64)}`,
};

/** Characters of a shard's schedule input once Scheduler has filled it in, at the longest. */
export function scheduleInputChars(shard: Shard): number {
  return JSON.stringify(scheduledEvent(WORST_CASE_FIELDS, shard)).length;
}

/** Characters a shard's schedule input takes in the template, escaped as a JSON string, at the longest. */
export function templateInputChars(shard: Shard): number {
  return JSON.stringify(JSON.stringify(scheduledEvent(WORST_CASE_FIELDS, shard))).length;
}

/**
 * A `shardSize` whose every shard fits the schedule input limit, close to the largest that does: the
 * suggestion of error messages. Undefined when not even one network per shard fits.
 */
export function fittingShardSize(networks: readonly string[], from = networks.length): number | undefined {
  const base = scheduleInputChars({ index: 0, networks: [], pollFilter: true, count: MAX_SHARDS });
  let size = Math.max(1, Math.min(from, networks.length));
  for (;;) {
    const longest = Math.max(...planShards(networks, size).map(scheduleInputChars));
    if (longest <= MAX_SCHEDULE_INPUT_CHARS) return size;
    if (size === 1) return undefined;
    // Scale by the longest shard's characters per network, and always make progress.
    const estimate = Math.floor((size * (MAX_SCHEDULE_INPUT_CHARS - base)) / (longest - base));
    size = Math.max(1, Math.min(size - 1, estimate));
  }
}
