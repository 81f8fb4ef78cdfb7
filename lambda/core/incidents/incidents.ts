/**
 * Incidents (CONTRACT §13, docs/design/incidents.md): the networks on which one rule triggers join one open
 * incident of that rule, across shards and concurrent cycles. Like an aggregation group of Alertmanager's
 * dispatcher, an incident scope owns its open incident, its members and its timers (the group interval, the
 * reminder). The judge is level-triggered: a shard's cycle says which of its networks the rule holds open
 * (from the rule cells it just committed) and what each reads; {@link judgeIncident} turns that view into
 * joins, leaves, peaks and the incident alerts. Pure: no clock, no environment, no I/O.
 */
import { cycleOrder } from '../clock.ts';
import type { RuleCondition } from '../rules/rule-kinds/index.ts';
import type { RuleOp } from '../rules/rule-types.ts';
import type { IncidentAlertRecord } from '../types.ts';
import { type EscalationSchedule, followTimers } from './escalation.ts';
import type { IncidentKind } from './incident-kinds.ts';

/** What an incident is about: one of the registry's kinds (`incident-kinds.ts`). */
export type { IncidentKind } from './incident-kinds.ts';

/** How alerts are grouped (the `groupBy` setting): one incident per rule, or each network on its own. */
export type GroupBy = 'rule' | 'none';

/** One network of an incident. */
export interface IncidentMember {
  readonly network: string;
  /** When it (first) joined, ISO-8601. */
  readonly joinedAt: string;
  /** When it left (its rule resolved on it); absent while it is active. */
  readonly leftAt?: string;
  /** Its latest reading while active, and when. */
  readonly value?: number | boolean;
  readonly valueAt?: string;
  /** Its worst reading in the incident (see {@link worse}), and when. */
  readonly peak?: number | boolean;
  readonly peakAt?: string;
  /** Its reading when it (first) joined: where the attack began on it (its time is `joinedAt`). */
  readonly first?: number | boolean;
  /**
   * Named by `incident.opened` or an `incident.updated` already: on a member of an earlier version's item only;
   * a member of its shard's working set is announced when its `seq` is at most its part's `announced`.
   */
  readonly announced?: boolean;
  /** Its join number in its shard's working set (1, 2, ...; 0: announced before join numbers existed). */
  readonly seq?: number;
  /** Times it left and came back within this incident. */
  readonly flaps?: number;
  /** The shard that judges it (on an earlier version's item: in a working set the shard is the set's). */
  readonly shard?: number;
  /**
   * The per-network incidents it joined with, by when each was triggered (ISO-8601; its rule cell id is
   * `<rule>/<network>/<that time>`), newest last, at most {@link MEMBER_TRIGGERS_MAX}: their `network.rule_*`
   * alerts are this incident's, recorded only, whatever `groupBy` says when they are sent
   * (docs/design/incidents.md, Switching groupBy). Absent on a member stored by an earlier version.
   */
  readonly triggers?: readonly string[];
}

/** What happened, for the story. */
export type TimelineWhat =
  | 'opened'
  | 'joined'
  | 'rejoined'
  | 'left'
  | 'updated'
  | 'reminded'
  | 'resolved'
  /** Issue 25 (lambda/core/incidents/incident-ack.ts, escalation.ts): `by` and `note` say who, `stage` which stage. */
  | 'acknowledged'
  | 'unacknowledged'
  | 'escalated';

/** One line of an incident's timeline: one kind of change in one commit, with the first networks it names. */
export interface TimelineEntry {
  readonly at: string;
  readonly what: TimelineWhat;
  /** The first {@link TIMELINE_NETWORKS} networks concerned. */
  readonly networks?: readonly string[];
  /** How many networks it concerns. */
  readonly count: number;
  /** `acknowledged`, `unacknowledged`: who (the IAM principal, the OS user, or `link`), and the note. */
  readonly by?: string;
  readonly note?: string;
  /** `escalated`: the stage reached. */
  readonly stage?: number;
}

/** Who acknowledged an incident (issue 25; CONTRACT §14). */
export interface Acknowledgement {
  readonly by: string;
  readonly at: string;
  readonly note?: string;
}

/** One incident. */
export interface Incident {
  /** `<rule>@<openedAt>`: the `sqs` document's `incident`, PagerDuty's `dedup_key`, the chat thread. */
  readonly id: string;
  readonly kind: IncidentKind;
  readonly rule: string;
  readonly ruleText?: string;
  readonly condition?: RuleCondition;
  readonly state: 'open' | 'resolved';
  readonly openedAt: string;
  readonly resolvedAt?: string;
  /**
   * Members kept in this item by an earlier version (every network that joined, in joining order), until their
   * shard moves them to its working set; empty once moved. Each shard's members live in its working set
   * ({@link ShardMembers}, items of their own: "any size"); {@link parts} sums them up. `incidents show` and
   * the listing assemble every member ({@link withMembers}).
   */
  readonly members: readonly IncidentMember[];
  /** Each shard's share: counts, its worst and its unannounced members (a few each). Absent on an earlier version's item. */
  readonly parts?: Readonly<Record<string, IncidentPart>>;
  /** Bounded to {@link TIMELINE_MAX} entries; the oldest beyond are counted in `timelineDropped`. */
  readonly timeline: readonly TimelineEntry[];
  readonly timelineDropped?: number;
  /** The last `incident.opened` or `incident.updated`: the group interval counts from it. */
  readonly lastNoticeAt: string;
  readonly lastRemindAt?: string;
  /** Incident alerts queued, and how many of them a silence suppressed (the drain counts those). */
  readonly alerts: { readonly sent: number; readonly suppressed: number };
  /** Escalation stage (issue 25): 1 until the first escalation. */
  readonly stage: number;
  /** Set by `shieldwatch ack` (issue 25): no reminders, no escalations. */
  readonly acknowledged?: Acknowledgement;
  /** Bumped by every acknowledge and unacknowledge (issue 25). */
  readonly ackRev?: number;
  /** How the attack spread: the network that opened it and the last one to join, each with when. */
  readonly spread?: IncidentSpread;
}

/** How an incident spread (CONTRACT §15, the attack's story): its first network, and the last to join. */
export interface IncidentSpread {
  readonly first: { readonly network: string; readonly at: string };
  readonly last: { readonly network: string; readonly at: string };
}

/**
 * One shard's share of an incident, as the incident item keeps it (bounded whatever the number of members): the
 * shard's working set summed up when the shard last judged it.
 */
export interface IncidentPart {
  /** Members active now, and every member that joined. */
  readonly active: number;
  readonly total: number;
  /** The highest join number in the shard, and the highest announced (in `incident.opened` or `.updated`). */
  readonly joined: number;
  readonly announced: number;
  /** Active members not yet announced, and the first few of them. */
  readonly freshCount: number;
  readonly fresh: readonly IncidentMember[];
  /** The shard's worst members (active first, then by peak), a few. */
  readonly worst: readonly IncidentMember[];
}

/**
 * One shard's members of its rule's incident (its working set, kept in items of its own beside the incident
 * item: `lambda/adapters/incident-members.ts`). Written before the incident item, so a member is never counted
 * by the incident without its details stored (docs/design/incidents.md, Any size).
 */
export interface ShardMembers {
  /** The incident they belong to; absent while an opening by this shard is not yet confirmed (adopted next). */
  readonly incident?: string;
  readonly members: readonly IncidentMember[];
  /** The shard's members of the incident before (which per-network alerts it held). */
  readonly previous?: { readonly incident: string; readonly members: readonly IncidentMember[] };
}

/** A shard with no working set. */
export const EMPTY_SHARD_MEMBERS: ShardMembers = { members: [] };

/** What one incident item holds (pk `state`, sk `incident#<rule>`). */
export interface IncidentScopeState {
  readonly nextSeq: number;
  /** The observation time of the last cycle applied, per shard: an older or equal one is stale. */
  readonly shards: Readonly<Record<string, string>>;
  readonly open?: Incident;
  /** The latest resolved incident, kept until the next one opens. */
  readonly last?: Incident;
}

/** The empty scope. */
export const EMPTY_INCIDENT_SCOPE: IncidentScopeState = { nextSeq: 1, shards: {} };

/** A member as an incident alert carries it (its story). */
export interface StoryMember {
  readonly network: string;
  /** Its reading when it joined (at `joinedAt`). */
  readonly first?: number | boolean;
  readonly value?: number | boolean;
  readonly peak?: number | boolean;
  readonly peakAt?: string;
  readonly joinedAt: string;
  readonly leftAt?: string;
}

/** What an incident alert tells: the members it is about, and the incident's totals. */
export interface IncidentStory {
  readonly kind: IncidentKind;
  readonly openedAt: string;
  readonly resolvedAt?: string;
  /** The members the alert is about (opened: the first ones; updated: the joiners; reminder: the active
   * ones; resolved: all), at most {@link STORY_MAX_MEMBERS}, worst first. */
  readonly members: readonly StoryMember[];
  /** How many members the alert is about (more than `members` lists when past the cap). */
  readonly count: number;
  /** Every network that joined the incident so far, and how many are active. */
  readonly total: number;
  readonly active: number;
  /** How it spread: the network that opened it and the last to join (an earlier version's item: absent). */
  readonly spread?: IncidentSpread;
}

/** The incident events. */
export type IncidentEvent =
  | 'incident.opened'
  | 'incident.updated'
  | 'incident.reminder'
  | 'incident.resolved'
  | 'incident.acknowledged'
  | 'incident.escalated';

/** A rule's reading of one of the shard's networks this cycle, and whether its cell is open after it. */
export interface MemberView {
  readonly network: string;
  /** The rule's cell on this network is open (triggered) after the cycle's commit. */
  readonly open: boolean;
  /** The reading of this cycle, when there was one. */
  readonly value?: number | boolean;
  /** When the open cell's per-network incident was triggered (recorded in the member it joins as). */
  readonly triggeredAt?: string;
  /**
   * False: an open cell that is not to join (its per-network incident is published per network, or `groupBy`
   * is `none`): it is left out, and an active member's reading still counts. Absent: it joins as before.
   */
  readonly joins?: boolean;
}

/** The rule an incident scope groups by. */
export interface IncidentSubject {
  readonly rule: string;
  readonly ruleText?: string;
  readonly condition?: RuleCondition;
}

/** What {@link judgeIncident} is given. */
export interface IncidentJudgeInput {
  readonly subject: IncidentSubject;
  /** The shard whose networks `views` are (the CLI and an unsharded stack are shard 0). */
  readonly shard: number;
  /** The cycle's observation time, ISO-8601. */
  readonly at: string;
  /** The shard's networks this cycle has evidence about (others are left as they are). */
  readonly views: readonly MemberView[];
  /**
   * Every network of the shard the rule watches: an active member this shard judged that is no longer among
   * them (the configuration changed) leaves. Undefined: none leaves that way.
   */
  readonly watched?: readonly string[];
  /** The shard's working set as read (absent: none yet). */
  readonly members?: ShardMembers;
  /**
   * How many shards run now (a schedule's event says it): the parts of shards at or past it leave, since no
   * cycle of theirs will (CONTRACT §13, Networks no longer watched leave). Undefined: unknown, none leaves so.
   */
  readonly shardCount?: number;
  readonly groupIntervalMs: number;
  /** Unset: no reminders. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting (docs/acknowledge.md): unset or empty, no escalation. */
  readonly escalateAfterMs?: EscalationSchedule;
  /** Epoch ms by which the cycle decides (docs/design/cycle.md, Clocks). */
  readonly decideByMs?: number;
}

/** An incident alert before the scope numbers it. */
export type IncidentAlert = Omit<IncidentAlertRecord, 'seq'> & { readonly event: IncidentEvent };

/** The shard's working set after a judgement: what to write before the incident item, when it changed. */
export interface MembersJudged {
  readonly members: ShardMembers;
  /** The set differs from the one read: written before the incident item. */
  readonly membersChanged: boolean;
  /** A finished incident's working set the shard leaves behind (kept for `incidents show`). */
  readonly archive?: ShardMembers;
}

/** What {@link judgeIncident} decided. */
export type IncidentJudgement =
  | { readonly stale: true }
  | ({ readonly stale: false; readonly changed: false } & MembersJudged)
  | ({
      readonly stale: false;
      readonly changed: true;
      readonly state: IncidentScopeState;
      readonly alerts: readonly IncidentAlert[];
    } & MembersJudged);

/** Per-network incidents remembered per member ({@link IncidentMember.triggers}). */
export const MEMBER_TRIGGERS_MAX = 2;
/** Timeline entries kept per incident. */
export const TIMELINE_MAX = 50;
/** Networks named per timeline entry. */
export const TIMELINE_NETWORKS = 5;
/**
 * Members an incident alert names at most (with the count of all it is about): an alert names a bounded few,
 * `incidents show ID` lists them all (CONTRACT §13, Any size).
 */
export const STORY_MAX_MEMBERS = 20;
/**
 * Members all parts of an incident keep of each sample (their worst, their unannounced), shared out among the
 * shards (at least one each, at most {@link STORY_MAX_MEMBERS}): the item stays bounded whatever the number of
 * members and shards (200 shards with ids of 128 characters: about 100 KB of samples).
 */
export const PARTS_SAMPLE_BUDGET = 200;

/** Members each of `parts` parts keeps of each sample. */
export function partSample(parts: number): number {
  return Math.max(1, Math.min(STORY_MAX_MEMBERS, Math.floor(PARTS_SAMPLE_BUDGET / Math.max(1, parts))));
}
/** The `groupInterval` setting's default, bounds are 1 minute and 1 day. */
export const DEFAULT_GROUP_INTERVAL_MS = 5 * 60_000;
export const MIN_GROUP_INTERVAL_MS = 60_000;
export const MAX_GROUP_INTERVAL_MS = 86_400_000;

/** The id of a rule incident: stable across its alerts, unique per opening. */
export function incidentId(rule: string, openedAt: string): string {
  return `${rule}@${openedAt}`;
}

/**
 * Whether `value` is worse than `peak` for a rule with operator `op`: higher for `>` and `>=`, lower for `<`
 * and `<=`; for `==`, `!=` and booleans the first reading stays the peak.
 */
export function worse(
  op: RuleOp | undefined,
  value: number | boolean,
  peak: number | boolean | undefined,
): boolean {
  if (peak === undefined) return true;
  if (typeof value !== 'number' || typeof peak !== 'number') return false;
  if (op === '>' || op === '>=') return value > peak;
  if (op === '<' || op === '<=') return value < peak;
  return false;
}

const ms = (iso: string): number => Date.parse(iso);

/**
 * Applies one shard's view of a rule to the rule's incident (docs/design/incidents.md, The judge). The shard's
 * members live in its working set ({@link ShardMembers}), the incident item keeps each shard's part (counts and
 * a few members), so neither grows with the number of networks. A network open in its cell joins the working
 * set (the first of all shards opens the incident: `incident.opened`), an active member whose cell closed, or
 * that is no longer watched, leaves (when no part of any shard has an active member the incident resolves:
 * `incident.resolved` with the worst members' peaks), a reading past a member's peak raises it, members not
 * yet announced (of every shard, still active) are announced in one `incident.updated` once the group interval
 * has passed, and the timers (reminder, escalation, the correction for times a clock ahead wrote) follow
 * {@link followTimers} as every incident's do. Parts of shards that no longer run leave. A cycle of the shard
 * not newer than the last one applied is stale. `changed: false`: the incident item is not written (its
 * working set may be: `membersChanged`).
 */
export function judgeIncident(
  scope: IncidentScopeState | undefined,
  input: IncidentJudgeInput,
): IncidentJudgement {
  const before = scope ?? EMPTY_INCIDENT_SCOPE;
  const shardKey = String(input.shard);
  const lastAt = Object.hasOwn(before.shards, shardKey) ? before.shards[shardKey] : undefined;
  if (cycleOrder(lastAt, input.at, input.decideByMs) === 'stale') return { stale: true };
  const { at } = input;
  const op = input.subject.condition?.op;
  const alerts: IncidentAlert[] = [];
  let open = before.open === undefined ? undefined : withParts(before.open, op);
  let lastIncident = before.last;
  let changed = false;

  // The shard's working set, as it stands against the incident item.
  const read = input.members ?? EMPTY_SHARD_MEMBERS;
  let set: ShardMembers = read;
  let setChanged = false;
  let archive: ShardMembers | undefined;
  if (set.incident !== undefined && set.incident !== open?.id) {
    // Its incident resolved: the set is kept for `incidents show`, its members remembered as the previous ones.
    archive = set;
    set = { members: [], previous: { incident: set.incident, members: set.members.map(pastMember) } };
    setChanged = true;
  }
  let nextSeq = set.members.reduce((max, m) => Math.max(max, m.seq ?? 0), 0) + 1;
  if (open !== undefined) {
    // Members an earlier version kept in the incident item move to their shard's working set.
    const mine = open.members.filter((m) => (m.shard ?? 0) === input.shard);
    if (mine.length > 0) {
      const have = new Set(set.members.map((m) => m.network));
      const moved = numbered(mine).filter((m) => !have.has(m.network));
      set = { ...set, members: [...set.members, ...moved] };
      open = { ...open, members: open.members.filter((m) => (m.shard ?? 0) !== input.shard) };
      nextSeq = set.members.reduce((max, m) => Math.max(max, m.seq ?? 0), 0) + 1;
      setChanged = true;
      changed = true;
    }
    if (set.incident === undefined) {
      set = { ...set, incident: open.id };
      setChanged = true;
    }
  }

  // Joins, leaves and peaks, in the order of the views (the shard's network order).
  const joined: string[] = [];
  const rejoined: string[] = [];
  const left: string[] = [];
  const members = new Map(set.members.map((m) => [m.network, m]));
  for (const view of input.views) {
    const member = members.get(view.network);
    const active = member !== undefined && member.leftAt === undefined;
    if (view.open && !active) {
      // Its own per-network incident (published per network), or `groupBy=none`: it does not join.
      if (view.joins === false) continue;
      if (member === undefined) {
        members.set(view.network, {
          network: view.network,
          joinedAt: at,
          seq: nextSeq++,
          ...(view.value === undefined ? {} : { first: view.value }),
          ...reading(view.value, at, undefined, op),
          ...withTrigger(undefined, view.triggeredAt),
        });
        joined.push(view.network);
      } else {
        const { leftAt: _left, ...back } = member;
        members.set(view.network, {
          ...back,
          flaps: (member.flaps ?? 0) + 1,
          ...reading(view.value, at, member, op),
          ...withTrigger(member.triggers, view.triggeredAt),
        });
        rejoined.push(view.network);
      }
      setChanged = true;
    } else if (!view.open && active) {
      members.set(view.network, { ...member, leftAt: at });
      left.push(view.network);
      setChanged = true;
    } else if (view.open && active && view.joins === true && isNewTrigger(member, view.triggeredAt)) {
      // Its cell closed and opened again unseen (a cycle whose incident write failed): the new one is ours too.
      members.set(view.network, {
        ...member,
        ...reading(view.value, at, member, op),
        ...withTrigger(member.triggers, view.triggeredAt),
      });
      setChanged = true;
    } else if (view.open && active && view.value !== undefined) {
      const next = { ...member, ...reading(view.value, at, member, op) };
      // Only a peak that rises is worth a write; the latest value rides along with writes made anyway.
      if (next.peak !== member.peak) setChanged = true;
      members.set(view.network, next);
    }
  }
  if (input.watched !== undefined) {
    const watched = new Set(input.watched);
    for (const member of members.values()) {
      if (member.leftAt === undefined && !watched.has(member.network)) {
        members.set(member.network, { ...member, leftAt: at });
        left.push(member.network);
        setChanged = true;
      }
    }
  }
  set = { ...set, members: [...members.values()] };
  const judgedSet = (): MembersJudged => ({
    members: set,
    membersChanged: setChanged,
    ...(archive === undefined ? {} : { archive }),
  });

  const before1 = open?.parts?.[shardKey];
  const partCount = Object.keys(open?.parts ?? {}).length + (before1 === undefined ? 1 : 0);
  let part = partOf(set.members, before1?.announced ?? 0, op, partSample(partCount));
  if (open === undefined) {
    if (part.active === 0) return { stale: false, changed: false, ...judgedSet() };
    // Opening: the shard's active members are named by `incident.opened` (so announced).
    const active = set.members.filter((m) => m.leftAt === undefined);
    part = partOf(set.members, part.joined, op, partSample(1));
    open = {
      id: incidentId(input.subject.rule, at),
      kind: 'rule',
      rule: input.subject.rule,
      ...(input.subject.ruleText === undefined ? {} : { ruleText: input.subject.ruleText }),
      ...(input.subject.condition === undefined ? {} : { condition: input.subject.condition }),
      state: 'open',
      openedAt: at,
      members: [],
      parts: { [shardKey]: part },
      timeline: [
        {
          at,
          what: 'opened',
          networks: active.slice(0, TIMELINE_NETWORKS).map((m) => m.network),
          count: active.length,
        },
      ],
      lastNoticeAt: at,
      alerts: { sent: 0, suppressed: 0 },
      stage: 1,
      ...(active[0] === undefined
        ? {}
        : {
            spread: {
              first: { network: active[0].network, at },
              last: { network: active.at(-1)!.network, at },
            },
          }),
    };
    alerts.push(incidentAlert('incident.opened', open, active, at));
    changed = true;
  } else {
    const parts: Record<string, IncidentPart> = { ...(open.parts ?? {}) };
    // A shard with no member takes no part (nothing to count: no write, and no read of its working set after).
    if (part.total > 0 || parts[shardKey] !== undefined) {
      if (!samePart(parts[shardKey], part)) changed = true;
      parts[shardKey] = part;
    }
    // Shards that no longer run: their members leave with them, since no cycle of theirs will judge them.
    let gone = 0;
    if (input.shardCount !== undefined) {
      for (const key of Object.keys(parts)) {
        if (Number(key) >= input.shardCount) {
          gone += parts[key]!.active;
          delete parts[key];
          changed = true;
        }
      }
    }
    const timeline = [...open.timeline];
    const note = (what: TimelineWhat, networks: readonly string[], count = networks.length) => {
      if (count === 0) return;
      timeline.push({ at, what, networks: networks.slice(0, TIMELINE_NETWORKS), count });
      changed = true;
    };
    note('joined', joined);
    note('rejoined', rejoined);
    note('left', left, left.length + gone);
    const lastJoined = [...joined, ...rejoined].at(-1);
    const spread: IncidentSpread | undefined =
      lastJoined === undefined
        ? open.spread
        : {
            first: open.spread?.first ?? { network: lastJoined, at },
            last: { network: lastJoined, at },
          };
    open = { ...open, parts, timeline, ...(spread === undefined ? {} : { spread }) };
  }

  const { active: activeNow, total } = partTotals(open);
  if (activeNow === 0) {
    // No member of any shard is active: the incident resolves with its worst members' story.
    const resolved: Incident = {
      ...open,
      state: 'resolved',
      resolvedAt: at,
      timeline: [...open.timeline, { at, what: 'resolved', count: total }],
    };
    alerts.push(incidentAlert('incident.resolved', resolved, sampleOf(resolved, 'worst'), at, total));
    lastIncident = withBoundedTimeline({ ...resolved, alerts: countSent(resolved, alerts.length) });
    open = undefined;
    changed = true;
  } else {
    const fresh = Object.values(open.parts ?? {}).reduce((sum, p) => sum + p.freshCount, 0);
    if (fresh > 0 && ms(at) - ms(open.lastNoticeAt) >= input.groupIntervalMs) {
      const about = sampleOf(open, 'fresh');
      const parts = Object.fromEntries(
        Object.entries(open.parts ?? {}).map(([key, p]) => [
          key,
          { ...p, announced: p.joined, freshCount: 0, fresh: [] },
        ]),
      );
      open = {
        ...open,
        parts,
        lastNoticeAt: at,
        timeline: [...open.timeline, { at, what: 'updated', count: fresh }],
      };
      alerts.push(incidentAlert('incident.updated', open, about, at, fresh));
      changed = true;
    }
    // The timers every incident follows (reminder, escalation, times a clock ahead wrote pulled back).
    const followed = followTimers(open, at, {
      ...(input.remindEveryMs === undefined ? {} : { remindEveryMs: input.remindEveryMs }),
      ...(input.escalateAfterMs === undefined ? {} : { escalateAfterMs: input.escalateAfterMs }),
    });
    if (
      followed.timers.openedAt !== open.openedAt ||
      followed.timers.lastRemindAt !== open.lastRemindAt ||
      !(ms(open.lastNoticeAt) <= ms(at))
    ) {
      changed = true;
    }
    open = {
      ...followed.timers,
      ...(ms(followed.timers.lastNoticeAt) <= ms(at) ? {} : { lastNoticeAt: at }),
    };
    const about = sampleOf(open, 'worst').filter((m) => m.leftAt === undefined);
    if (followed.reminded !== undefined) {
      open = { ...open, timeline: [...open.timeline, { at, what: 'reminded', count: activeNow }] };
      alerts.push(
        incidentAlert('incident.reminder', { ...open, stage: followed.reminded.stage }, about, at, activeNow),
      );
      changed = true;
    }
    if (followed.escalated !== undefined) {
      open = {
        ...open,
        timeline: [...open.timeline, { at, what: 'escalated', count: activeNow, stage: open.stage }],
      };
      alerts.push(incidentAlert('incident.escalated', open, about, at, activeNow));
      changed = true;
    }
    open = withBoundedTimeline({ ...open, alerts: countSent(open, alerts.length) });
  }
  if (!changed) return { stale: false, changed: false, ...judgedSet() };
  return {
    stale: false,
    changed: true,
    state: {
      nextSeq: before.nextSeq,
      shards: { ...before.shards, [shardKey]: at },
      ...(open === undefined ? {} : { open }),
      ...(lastIncident === undefined ? {} : { last: lastIncident }),
    },
    alerts,
    ...judgedSet(),
  };
}

/** What a working set remembers of a member of the incident before: which per-network incidents it held. */
function pastMember(member: IncidentMember): IncidentMember {
  return {
    network: member.network,
    joinedAt: member.joinedAt,
    ...(member.leftAt === undefined ? {} : { leftAt: member.leftAt }),
    ...(member.triggers === undefined ? {} : { triggers: member.triggers }),
  };
}

/**
 * An earlier version's members (`announced` flags, in the incident item) as a working set's: announced ones
 * number 0 (at most any part's `announced`), the others 1, 2, ... in joining order.
 */
function numbered(legacy: readonly IncidentMember[]): IncidentMember[] {
  let seq = 0;
  return legacy.map((m) => {
    const { announced, shard: _shard, ...rest } = m;
    return { ...rest, seq: announced === false ? ++seq : (m.seq ?? 0) };
  });
}

/** An incident with its parts: an earlier version's (every member in the item) summed up per shard. */
function withParts(incident: Incident, op: RuleOp | undefined): Incident {
  if (incident.parts !== undefined) return incident;
  const byShard = new Map<string, IncidentMember[]>();
  for (const m of incident.members) {
    const key = String(m.shard ?? 0);
    byShard.set(key, [...(byShard.get(key) ?? []), m]);
  }
  const parts = Object.fromEntries(
    [...byShard].map(([key, members]) => [key, partOf(numbered(members), 0, op, partSample(byShard.size))]),
  );
  return { ...incident, parts };
}

/** A shard's part from its working set, members numbered up to `announced` being announced. */
export function partOf(
  members: readonly IncidentMember[],
  announced: number,
  op: RuleOp | undefined,
  sample = STORY_MAX_MEMBERS,
): IncidentPart {
  const active = members.filter((m) => m.leftAt === undefined);
  const fresh = active.filter((m) => (m.seq ?? 0) > announced);
  const joined = members.reduce((max, m) => Math.max(max, m.seq ?? 0), 0);
  const slim = (m: IncidentMember): IncidentMember => {
    const { triggers: _t, flaps: _f, valueAt: _v, announced: _a, shard: _s, ...rest } = m;
    return rest;
  };
  return {
    active: active.length,
    total: members.length,
    joined,
    announced: Math.min(announced, joined),
    freshCount: fresh.length,
    fresh: fresh.slice(0, sample).map(slim),
    worst: worstFirst(members, op).slice(0, sample).map(slim),
  };
}

/** Members active first, then by peak (the rule's operator), then in joining order. */
function worstFirst(members: readonly IncidentMember[], op: RuleOp | undefined): IncidentMember[] {
  return [...members].sort((a, b) => {
    const activeA = a.leftAt === undefined;
    if (activeA !== (b.leftAt === undefined)) return activeA ? -1 : 1;
    return byPeak(op)(a, b);
  });
}

/** The worse peak first (the rule's operator); a member without a peak last. */
function byPeak(op: RuleOp | undefined): (a: IncidentMember, b: IncidentMember) => number {
  return (a, b) => {
    if (a.peak === undefined || b.peak === undefined)
      return a.peak === undefined ? (b.peak === undefined ? 0 : 1) : -1;
    if (worse(op, a.peak, b.peak)) return -1;
    if (worse(op, b.peak, a.peak)) return 1;
    return 0;
  };
}

/** Two parts alike but for the members' latest values (not worth a write alone). */
function samePart(a: IncidentPart | undefined, b: IncidentPart): boolean {
  if (a === undefined) return false;
  const key = (p: IncidentPart) =>
    JSON.stringify({ ...p, fresh: p.fresh.map(unvalued), worst: p.worst.map(unvalued) });
  return key(a) === key(b);
}

function unvalued(m: IncidentMember): Omit<IncidentMember, 'value' | 'valueAt'> {
  const { value: _v, valueAt: _a, ...rest } = m;
  return rest;
}

/** An incident's members across its parts (and an earlier version's members still in its item). */
export function partTotals(incident: Incident): { readonly total: number; readonly active: number } {
  if (incident.parts === undefined) {
    return {
      total: incident.members.length,
      active: incident.members.filter((m) => m.leftAt === undefined).length,
    };
  }
  const parts = Object.values(incident.parts);
  return {
    total: parts.reduce((sum, p) => sum + p.total, 0),
    active: parts.reduce((sum, p) => sum + p.active, 0),
  };
}

/**
 * The few members an incident item knows beyond its counts, worst first: each part's worst (`worst`) or its
 * unannounced (`fresh`); an earlier version's item: its members.
 */
export function sampleOf(incident: Incident, which: 'worst' | 'fresh'): IncidentMember[] {
  if (incident.parts === undefined) {
    return which === 'fresh'
      ? incident.members.filter((m) => m.announced === false && m.leftAt === undefined)
      : worstFirst(incident.members, incident.condition?.op);
  }
  const all = Object.values(incident.parts).flatMap((p) => p[which]);
  return worstFirst(all, incident.condition?.op).slice(0, STORY_MAX_MEMBERS);
}

/** A member's value and peak after a reading (none: as they were). */
function reading(
  value: number | boolean | undefined,
  at: string,
  member: IncidentMember | undefined,
  op: RuleOp | undefined,
): Partial<IncidentMember> {
  if (value === undefined) return {};
  return {
    value,
    valueAt: at,
    ...(worse(op, value, member?.peak) ? { peak: value, peakAt: at } : {}),
  };
}

/** A member's per-network incidents with the one triggered at `at` added (none given: as they were). */
function withTrigger(
  triggers: readonly string[] | undefined,
  at: string | undefined,
): Partial<IncidentMember> {
  if (at === undefined) return triggers === undefined ? {} : { triggers };
  const kept = (triggers ?? []).filter((t) => t !== at);
  return { triggers: [...kept, at].slice(-MEMBER_TRIGGERS_MAX) };
}

/** Whether the per-network incident triggered at `at` is one the member did not join with (an earlier version's member: none is). */
function isNewTrigger(member: IncidentMember, at: string | undefined): boolean {
  return at !== undefined && member.triggers !== undefined && !member.triggers.includes(at);
}

function countSent(incident: Incident, queued: number): Incident['alerts'] {
  return { ...incident.alerts, sent: incident.alerts.sent + queued };
}

/** The incident with its timeline within {@link TIMELINE_MAX}: the opening and the newest, the rest counted. */
function withBoundedTimeline(incident: Incident): Incident {
  const { timeline } = incident;
  if (timeline.length <= TIMELINE_MAX) return incident;
  const drop = timeline.length - TIMELINE_MAX;
  return {
    ...incident,
    timeline: [timeline[0]!, ...timeline.slice(drop + 1)],
    timelineDropped: (incident.timelineDropped ?? 0) + drop,
  };
}

/**
 * An incident with every member (`incidents show`): an earlier version's members still in its item, and those
 * of the shards' working sets and archives; members of a shard no longer in its parts (it stopped running)
 * left when it did, at the latest when the incident resolved.
 */
export function withMembers(incident: Incident, stored: readonly IncidentMember[]): Incident {
  const byNetwork = new Map(incident.members.map((m) => [m.network, m]));
  for (const m of stored) byNetwork.set(m.network, m);
  return { ...incident, members: [...byNetwork.values()] };
}

/** The members an alert is about, worst first (by peak, for the rule's operator), capped. */
export function storyMembers(incident: Incident, members: readonly IncidentMember[]): StoryMember[] {
  const sorted = [...members].sort(byPeak(incident.condition?.op));
  return sorted.slice(0, STORY_MAX_MEMBERS).map((m) => ({
    network: m.network,
    ...(m.first === undefined ? {} : { first: m.first }),
    ...(m.value === undefined ? {} : { value: m.value }),
    ...(m.peak === undefined ? {} : { peak: m.peak }),
    ...(m.peakAt === undefined ? {} : { peakAt: m.peakAt }),
    joinedAt: m.joinedAt,
    ...(m.leftAt === undefined ? {} : { leftAt: m.leftAt }),
  }));
}

/** An incident alert about `about` (the members it names), with the incident's totals and stage. */
export function incidentAlert(
  event: IncidentEvent,
  incident: Incident,
  about: readonly IncidentMember[],
  at: string,
  count: number = about.length,
): IncidentAlert {
  const { total, active } = partTotals(incident);
  return {
    event,
    at,
    incident: incident.id,
    rule: incident.rule,
    ...(incident.ruleText === undefined ? {} : { ruleText: incident.ruleText }),
    ...(incident.condition === undefined ? {} : { condition: incident.condition }),
    openedAt: incident.openedAt,
    severity: event === 'incident.resolved' ? 'resolved' : 'high',
    stage: incident.stage,
    story: {
      kind: incident.kind,
      openedAt: incident.openedAt,
      ...(incident.resolvedAt === undefined ? {} : { resolvedAt: incident.resolvedAt }),
      members: storyMembers(incident, about),
      count: Math.max(count, Math.min(about.length, STORY_MAX_MEMBERS)),
      total,
      active,
      ...(incident.spread === undefined ? {} : { spread: incident.spread }),
    },
  };
}

/** One incident as `shieldwatch incidents --format json` prints it (CONTRACT §13). */
export interface IncidentRow {
  readonly id: string;
  readonly kind: IncidentKind;
  readonly rule?: string;
  readonly state: 'open' | 'acknowledged' | 'resolved';
  readonly openedAt: string;
  readonly resolvedAt?: string;
  readonly networks: ReadonlyArray<{
    readonly network: string;
    readonly peak?: number | boolean;
    readonly peakAt?: string;
  }>;
  readonly acknowledged?: Acknowledgement;
}

/** The JSON row of an incident (CONTRACT §13). */
export function incidentRow(incident: Incident): IncidentRow {
  return {
    id: incident.id,
    kind: incident.kind,
    rule: incident.rule,
    state:
      incident.state === 'resolved'
        ? 'resolved'
        : incident.acknowledged !== undefined
          ? 'acknowledged'
          : 'open',
    openedAt: incident.openedAt,
    ...(incident.resolvedAt === undefined ? {} : { resolvedAt: incident.resolvedAt }),
    networks: incident.members.map((m) => ({
      network: m.network,
      ...(m.peak === undefined ? {} : { peak: m.peak }),
      ...(m.peakAt === undefined ? {} : { peakAt: m.peakAt }),
    })),
    ...(incident.acknowledged === undefined ? {} : { acknowledged: incident.acknowledged }),
  };
}
