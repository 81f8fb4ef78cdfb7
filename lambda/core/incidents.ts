/**
 * Incidents (CONTRACT §13, docs/design/incidents.md): the networks on which one rule triggers join one open
 * incident of that rule, across shards and concurrent cycles. Like an aggregation group of Alertmanager's
 * dispatcher, an incident scope owns its open incident, its members and its timers (the group interval, the
 * reminder). The judge is level-triggered: a shard's cycle says which of its networks the rule holds open
 * (from the rule cells it just committed) and what each reads; {@link judgeIncident} turns that view into
 * joins, leaves, peaks and the incident alerts. Pure: no clock, no environment, no I/O.
 */
import { cycleOrder } from './clock.ts';
import { dueEscalation, type EscalationSchedule } from './escalation.ts';
import type { RuleCondition } from './rule-kinds/index.ts';
import type { RuleOp } from './rule-types.ts';
import type { IncidentAlertRecord } from './types.ts';

/** What an incident is about. Only `rule` is judged here so far; the others are the hooks of CONTRACT §13. */
export type IncidentKind = 'rule' | 'status' | 'api' | 'network' | 'rule_unreadable';

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
  /** Named by `incident.opened` or an `incident.updated` already. */
  readonly announced: boolean;
  /** Times it left and came back within this incident. */
  readonly flaps?: number;
  /** The shard that judges it: a network no longer watched there leaves. */
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
  /** Issue 25 (lambda/core/incident-ack.ts, escalation.ts): `by` and `note` say who, `stage` which stage. */
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
  /** Every network that ever joined, in joining order. */
  readonly members: readonly IncidentMember[];
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
}

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

/** What {@link judgeIncident} decided. */
export type IncidentJudgement =
  | { readonly stale: true }
  | { readonly stale: false; readonly changed: false }
  | {
      readonly stale: false;
      readonly changed: true;
      readonly state: IncidentScopeState;
      readonly alerts: readonly IncidentAlert[];
    };

/** Per-network incidents remembered per member ({@link IncidentMember.triggers}). */
export const MEMBER_TRIGGERS_MAX = 2;
/** Timeline entries kept per incident. */
export const TIMELINE_MAX = 50;
/** Networks named per timeline entry. */
export const TIMELINE_NETWORKS = 10;
/** Members an incident alert carries at most (its texts cut further where a channel has a size limit). */
export const STORY_MAX_MEMBERS = 1000;
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
 * Applies one shard's view of a rule to the rule's incident scope (docs/design/incidents.md, The judge): a
 * network open in its cell joins (the first opens the incident: `incident.opened`), an active member whose
 * cell closed leaves (the last one resolves it: `incident.resolved` with every member's peak), a reading past
 * a member's peak raises it, networks not yet announced are announced in one `incident.updated` once the group
 * interval since the last notice has passed, and `incident.reminder` follows every `remindEveryMs` while open
 * and unacknowledged. A cycle of the shard not newer than the last one applied is stale; nothing changed:
 * `changed: false` (the caller writes nothing).
 */
export function judgeIncident(
  scope: IncidentScopeState | undefined,
  input: IncidentJudgeInput,
): IncidentJudgement {
  const before = scope ?? EMPTY_INCIDENT_SCOPE;
  const shardKey = String(input.shard);
  const last = Object.hasOwn(before.shards, shardKey) ? before.shards[shardKey] : undefined;
  if (cycleOrder(last, input.at, input.decideByMs) === 'stale') return { stale: true };
  const { at } = input;
  const op = input.subject.condition?.op;
  const alerts: IncidentAlert[] = [];
  let open = before.open;
  let lastIncident = before.last;
  let changed = false;
  const joined: string[] = [];
  const rejoined: string[] = [];
  const left: string[] = [];

  // Joins, leaves and peaks, in the order of the views (the shard's network order).
  const members = new Map((open?.members ?? []).map((m) => [m.network, m]));
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
          announced: false,
          shard: input.shard,
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
      changed = true;
    } else if (!view.open && active) {
      members.set(view.network, { ...member, leftAt: at });
      left.push(view.network);
      changed = true;
    } else if (view.open && active && view.joins === true && isNewTrigger(member, view.triggeredAt)) {
      // Its cell closed and opened again unseen (a cycle whose incident write failed): the new one is ours too.
      members.set(view.network, {
        ...member,
        ...reading(view.value, at, member, op),
        ...withTrigger(member.triggers, view.triggeredAt),
      });
      changed = true;
    } else if (view.open && active && view.value !== undefined) {
      const next = { ...member, ...reading(view.value, at, member, op) };
      // Only a peak that rises is worth a write; the latest value rides along with writes made anyway.
      if (next.peak !== member.peak) changed = true;
      members.set(view.network, next);
    }
  }
  if (input.watched !== undefined) {
    const watched = new Set(input.watched);
    for (const member of members.values()) {
      if (member.shard === input.shard && member.leftAt === undefined && !watched.has(member.network)) {
        members.set(member.network, { ...member, leftAt: at });
        left.push(member.network);
        changed = true;
      }
    }
  }
  if (!changed && open === undefined) return { stale: false, changed: false };

  let timeline: TimelineEntry[] = [...(open?.timeline ?? [])];
  const note = (what: TimelineWhat, networks: readonly string[]) => {
    if (networks.length === 0) return;
    timeline.push({ at, what, networks: networks.slice(0, TIMELINE_NETWORKS), count: networks.length });
  };
  let memberList = [...members.values()];

  if (open === undefined) {
    // Opening: every network that joined in this commit is in `incident.opened`.
    memberList = memberList.map((m) => ({ ...m, announced: true }));
    timeline = [];
    note('opened', joined);
    open = {
      id: incidentId(input.subject.rule, at),
      kind: 'rule',
      rule: input.subject.rule,
      ...(input.subject.ruleText === undefined ? {} : { ruleText: input.subject.ruleText }),
      ...(input.subject.condition === undefined ? {} : { condition: input.subject.condition }),
      state: 'open',
      openedAt: at,
      members: memberList,
      timeline,
      lastNoticeAt: at,
      alerts: { sent: 0, suppressed: 0 },
      stage: 1,
    };
    alerts.push(incidentAlert('incident.opened', open, memberList, at));
  } else {
    note('joined', joined);
    note('rejoined', rejoined);
    note('left', left);
    open = { ...open, members: memberList, timeline };
  }

  const activeNow = memberList.filter((m) => m.leftAt === undefined);
  if (activeNow.length === 0) {
    // The last member left: the incident resolves with every member's story.
    const resolved: Incident = {
      ...open,
      state: 'resolved',
      resolvedAt: at,
      timeline: [...open.timeline, { at, what: 'resolved', count: memberList.length }],
    };
    alerts.push(incidentAlert('incident.resolved', resolved, memberList, at));
    lastIncident = withBoundedTimeline({ ...resolved, alerts: countSent(resolved, alerts.length) });
    open = undefined;
  } else {
    const unannounced = memberList.filter((m) => !m.announced);
    if (unannounced.length > 0 && ms(at) - ms(open.lastNoticeAt) >= input.groupIntervalMs) {
      const names = new Set(unannounced.map((m) => m.network));
      memberList = memberList.map((m) => (names.has(m.network) ? { ...m, announced: true } : m));
      open = {
        ...open,
        members: memberList,
        lastNoticeAt: at,
        timeline: [...open.timeline, { at, what: 'updated', count: unannounced.length }],
      };
      alerts.push(incidentAlert('incident.updated', open, unannounced, at));
      changed = true;
    }
    const remindFrom = open.lastRemindAt ?? open.openedAt;
    if (
      input.remindEveryMs !== undefined &&
      open.acknowledged === undefined &&
      ms(at) - ms(remindFrom) >= input.remindEveryMs
    ) {
      open = {
        ...open,
        lastRemindAt: at,
        timeline: [...open.timeline, { at, what: 'reminded', count: activeNow.length }],
      };
      alerts.push(incidentAlert('incident.reminder', open, activeNow, at));
      changed = true;
    }
    // Step 6 (issue 25): open, unacknowledged and old enough for the next stage of the escalation schedule.
    const stage = dueEscalation(
      {
        openedAtMs: ms(open.openedAt),
        stage: open.stage,
        acknowledged: open.acknowledged !== undefined,
        resolved: false,
      },
      input.escalateAfterMs ?? [],
      ms(at),
    );
    if (stage !== undefined) {
      open = {
        ...open,
        stage,
        timeline: [...open.timeline, { at, what: 'escalated', count: activeNow.length, stage }],
      };
      alerts.push(incidentAlert('incident.escalated', open, activeNow, at));
      changed = true;
    }
    open = withBoundedTimeline({ ...open, alerts: countSent(open, alerts.length) });
  }
  if (!changed) return { stale: false, changed: false };
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
  };
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

/** The members an alert is about, worst first (by peak, for the rule's operator), capped. */
export function storyMembers(incident: Incident, members: readonly IncidentMember[]): StoryMember[] {
  const op = incident.condition?.op;
  const sorted = [...members].sort((a, b) => {
    if (a.peak === undefined || b.peak === undefined) return a.peak === undefined ? 1 : -1;
    if (worse(op, a.peak, b.peak)) return -1;
    if (worse(op, b.peak, a.peak)) return 1;
    return 0;
  });
  return sorted.slice(0, STORY_MAX_MEMBERS).map((m) => ({
    network: m.network,
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
): IncidentAlert {
  const members = incident.members;
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
      count: about.length,
      total: members.length,
      active: members.filter((m) => m.leftAt === undefined).length,
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
