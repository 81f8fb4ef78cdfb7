/**
 * What `shieldwatch incidents` shows of one incident, whatever its kind (CONTRACT §13), and the stored events it
 * is built from. Shared by the rule incidents (`incident-list.ts`) and the others (`incident-list-kinds.ts`).
 * Pure: types and helpers over what the store returned.
 */

import type { RuleOp } from '../rules/rule-types.ts';
import type { IncidentKind, IncidentRow, IncidentSpread, StoryMember, TimelineEntry } from './incidents.ts';

/**
 * An alert event as the store keeps it (a subset of `StoredEvent`, read defensively: a field the store does not
 * return is simply absent).
 */
export interface IncidentEventRecord {
  readonly at: string;
  readonly event: string;
  readonly seq?: number;
  readonly incident?: string;
  readonly rule?: string;
  readonly ruleText?: string;
  /** A rule alert (`network.rule_*`): its network, the value it read, the threshold, when its incident triggered. */
  readonly network?: string;
  readonly value?: number | boolean;
  readonly threshold?: number | boolean;
  readonly triggeredAt?: string;
  /**
   * A rule's resolve: its incident's peak on the network and when (absent on a record stored before it was
   * carried, and on a resolve whose cell kept no peak).
   */
  readonly peak?: number | boolean;
  readonly peakAt?: string;
  /** A rule alert: its rule's operator (absent on a record stored before it was carried). */
  readonly condition?: { readonly op: RuleOp };
  /** Status changes: the status it went to (and came from). */
  readonly to?: string;
  readonly from?: string;
  /** Status changes with an expected status: `high` away from it, `resolved` back to it. */
  readonly severity?: string;
  /** The API's last error; a blind spot's networks in one line; an acknowledgement's note. */
  readonly detail?: string;
  /** `incident.acknowledged`: who. */
  readonly acknowledgedBy?: string;
  /** An end: when what ended was first seen. */
  readonly previousSince?: string;
  /** `incident.*`: when the incident opened (older stores: `since`). */
  readonly openedAt?: string;
  readonly since?: string;
  readonly suppressedBy?: string;
  /** A blind spot's alert: the networks it is about. */
  readonly members?: ReadonlyArray<{ readonly network: string; readonly since?: string }>;
  /** A blind spot's recovery: the networks of its incident still failing (none: it resolves the incident). */
  readonly remaining?: readonly string[];
  readonly story?: {
    readonly kind: IncidentKind;
    readonly openedAt: string;
    readonly resolvedAt?: string;
    readonly members: readonly StoryMember[];
    /** How many members the alert is about (more than `members` lists when past the cap). */
    readonly count?: number;
    /** How the incident spread (an alert stored before it was carried: absent). */
    readonly spread?: IncidentSpread;
  };
}

/** One line of an incident's timeline; `detail` says what a status, API or blind-spot alert told. */
export interface IncidentTimelineEntry extends TimelineEntry {
  readonly detail?: string;
}

/** One incident with its story, for `incidents` and `incidents show`. */
export interface IncidentView extends IncidentRow {
  /**
   * What it is about, in a few words: the rule's name, `status away: "mitigating"`, `API unreachable`,
   * `network unreachable`, `rule flood reads nothing`.
   */
  readonly about: string;
  readonly ruleText?: string;
  /** The latest words about it: the status it went to, the API's last error, a blind spot's networks. */
  readonly detail?: string;
  /** Every member: joined, left, first and latest value, peak (none for a status or API incident). */
  readonly members: readonly StoryMember[];
  /** A rule's incident across networks: the network that opened it and the last to join, with when. */
  readonly spread?: IncidentSpread;
  /** The incident item's timeline (bounded), or its alerts' times for an incident known from events only. */
  readonly timeline: readonly IncidentTimelineEntry[];
  /** The incident's alerts as recorded: sent, or suppressed by a silence. */
  readonly alerts: ReadonlyArray<{
    readonly at: string;
    readonly event: string;
    readonly suppressedBy?: string;
  }>;
}

/** The alerts recorded with incident id `id`, oldest first. */
export function alertsOf(id: string, events: readonly IncidentEventRecord[]): IncidentView['alerts'] {
  return events
    .filter((e) => e.incident === id)
    .map((e) => ({
      at: e.at,
      event: e.event,
      ...(e.suppressedBy === undefined ? {} : { suppressedBy: e.suppressedBy }),
    }));
}

/**
 * The JSON row of an incident (CONTRACT §13), as `shieldwatch incidents --format json` prints it and the private
 * `status.json` lists its open incidents (CONTRACT §15, "One view"): the fields absent on the view are left out.
 */
export function listingRow(view: IncidentView): IncidentRow {
  return {
    id: view.id,
    kind: view.kind,
    ...(view.rule === undefined ? {} : { rule: view.rule }),
    state: view.state,
    openedAt: view.openedAt,
    ...(view.resolvedAt === undefined ? {} : { resolvedAt: view.resolvedAt }),
    networks: view.networks,
    ...(view.acknowledged === undefined ? {} : { acknowledged: view.acknowledged }),
  };
}
