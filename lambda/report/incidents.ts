/**
 * The window's incidents, derived from its stored events (docs/report.md): each trigger paired with its
 * resolve by the alert's `incident` id, and the networks on which one rule triggered at overlapping times
 * grouped into one incident of that rule, each network with its peak value and when. Incidents are not stored
 * items yet; this is the one place that makes them from events, and its rows already have the shape of
 * `shieldwatch incidents --format json` (CONTRACT §13), so stored incidents can replace it later.
 * Pure: no store, no clock.
 */
import { type AlertLevel, alertIncident, alertLevel } from '../core/alerts/alert-documents.ts';
import type { Rule, RuleOp } from '../core/rules/rule-types.ts';
import { parseRules } from '../core/rules/rules.ts';
import type { AlertRecord } from '../core/types.ts';
import type { StoredEvent } from '../ports.ts';

/** What an incident is about: the status away from the expected one, the API, the key, the status unreadable, a rule. */
export type IncidentKind = 'status' | 'api' | 'auth' | 'unreadable' | 'rule';

/** One network of an incident. */
export interface IncidentNetwork {
  readonly network: string;
  /** The most extreme value of the rule's figure while the incident held on it (highest for `>`, lowest for `<`). */
  readonly peak: number | boolean | null;
  /** When the peak was seen, ISO-8601. */
  readonly peakAt: string | null;
  /** When the rule triggered on this network and when it resolved (null: still open), ISO-8601. */
  readonly openedAt: string;
  readonly resolvedAt: string | null;
}

/** An incident of the window. */
export interface ReportIncident {
  readonly id: string;
  readonly kind: IncidentKind;
  /** The rule's name (rule incidents), else null. */
  readonly rule: string | null;
  readonly state: 'open' | 'resolved';
  /** ISO-8601. */
  readonly openedAt: string;
  readonly resolvedAt: string | null;
  /** Rule incidents: each network, first triggered first; others: none. */
  readonly networks: IncidentNetwork[];
  /**
   * Always false here: the report reads the stored events, and an acknowledgement lives in the incident's state
   * (`shieldwatch incidents` and `status` show it; CONTRACT §14).
   */
  readonly acknowledged: boolean;
  /** The severity of the alert that opened it, as the alert documents give it (`critical`, `error`, ...). */
  readonly level: AlertLevel;
  /** Words about it: the status it went to (the latest), the API's last error, the rule as written. */
  readonly detail?: string;
  /** Rule incidents: the rule's operator, for which way a peak goes. */
  readonly op?: RuleOp;
  /** Rule incidents: the figure the rule reads. */
  readonly path?: string;
  /** Rule incidents: the unit of that figure (docs/report.md, units), for its peaks. */
  readonly unit?: string;
}

/** The row of `shieldwatch incidents --format json` (CONTRACT §13) for an incident. */
export interface IncidentRow {
  readonly id: string;
  readonly kind: IncidentKind;
  readonly rule: string | null;
  readonly state: 'open' | 'resolved';
  readonly openedAt: string;
  readonly resolvedAt: string | null;
  readonly networks: Array<{ network: string; peak: number | boolean | null; peakAt: string | null }>;
  readonly acknowledged: boolean;
}

/** What the pairing needs besides the events. */
export interface IncidentOptions {
  /** The `expectedStatus` setting: tells a change away from a change back when the event has no severity. */
  readonly expected?: string;
  /** The rules in force (the `rules` setting) besides those the events carry: a rule's path and operator. */
  readonly rules?: readonly Rule[];
}

/** The event that opens each kind of incident but rules, and the one that closes it. */
const OPENERS: Readonly<Record<string, { kind: IncidentKind; closer: string }>> = {
  'api.unreachable': { kind: 'api', closer: 'api.recovered' },
  'api.auth_failed': { kind: 'auth', closer: 'api.auth_restored' },
  'filter.status_unreadable': { kind: 'unreadable', closer: 'filter.status_readable' },
};
const CLOSERS: Readonly<Record<string, IncidentKind>> = Object.fromEntries(
  Object.values(OPENERS).map(({ kind, closer }) => [closer, kind]),
);

interface Draft {
  id: string;
  kind: IncidentKind;
  openedAt: string;
  resolvedAt: string | null;
  level: AlertLevel;
  detail?: string;
}

interface Member {
  id: string;
  rule: string;
  network: string;
  openedAt: string;
  resolvedAt: string | null;
  /** The values the trigger carried (its own and the cycles before it) and when the trigger was seen. */
  values: Array<number | boolean>;
  level: AlertLevel;
}

/**
 * The rules by name: those the events carry as written (`ruleText`, the rule when it alerted), then the rules
 * in force for names no event carries.
 */
export function rulesOf(events: readonly StoredEvent[], inForce: readonly Rule[] = []): Map<string, Rule> {
  const byName = new Map<string, Rule>();
  for (const event of events) {
    if (typeof event.ruleText !== 'string' || typeof event.rule !== 'string' || byName.has(event.rule))
      continue;
    const rule = parseRules(event.ruleText).rules.find((r) => r.name === event.rule);
    if (rule !== undefined) byName.set(rule.name, rule);
  }
  for (const rule of inForce) if (!byName.has(rule.name)) byName.set(rule.name, rule);
  return byName;
}

/** Which way a rule's peak goes: the highest value for `>` and `>=`, the lowest for `<` and `<=`. */
export function peakDirection(op: RuleOp | undefined): 'max' | 'min' {
  return op === '<' || op === '<=' ? 'min' : 'max';
}

/** Whether `a` is further than `b` in `direction` (numbers only; a boolean is a peak only when nothing else is). */
function beyond(a: number | boolean, b: number | boolean | null, direction: 'max' | 'min'): boolean {
  if (b === null) return true;
  if (typeof a !== 'number') return false;
  if (typeof b !== 'number') return true;
  return direction === 'max' ? a > b : a < b;
}

/**
 * The incidents of the window, newest first (open ones before resolved ones): a status away from the expected
 * one (from the change away to the change back), the API unreachable, the key rejected, the status unreadable
 * (from the alert to its recovery), and rule incidents. A resolve is paired with its trigger by the `incident`
 * id both carry; an event without one (stored before ids were kept) is paired with the open incident of its
 * kind (there is at most one of each at a time), or for a rule with the open one of its rule and network. A
 * resolve whose trigger is before the window ends an incident that opened at the window's start
 * (`windowStart`). Rule incidents: the networks of one rule whose intervals overlap are one incident (the
 * first member's id), peaks from the values the triggers carry; {@link withObservedPeaks} adds the values of
 * the snapshots.
 */
export function deriveIncidents(
  events: readonly StoredEvent[],
  windowStart: string,
  options: IncidentOptions = {},
): ReportIncident[] {
  const rules = rulesOf(events, options.rules);
  const drafts: Draft[] = [];
  const openByKind = new Map<IncidentKind, Draft>();
  const members: Member[] = [];
  const openMembers = new Map<string, Member>();
  const sorted = [...events].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.seq - b.seq));
  const idOf = (event: StoredEvent) =>
    alertIncident(event as unknown as AlertRecord) ?? `${event.event}/${event.at}`;
  const closeDraft = (kind: IncidentKind, at: string, level: AlertLevel, id: string | undefined) => {
    const open = openByKind.get(kind);
    if (open !== undefined && (id === undefined || open.id === id || !drafts.some((d) => d.id === id))) {
      open.resolvedAt = at;
      openByKind.delete(kind);
      return;
    }
    // Its start is before the window: the incident was open when the window began.
    if (open === undefined && id !== undefined && !drafts.some((d) => d.id === id))
      drafts.push({ id, kind, openedAt: windowStart, resolvedAt: at, level });
  };
  for (const event of sorted) {
    const name = String(event.event);
    if (name === 'network.rule_triggered' || name === 'network.rule_resolved') {
      const rule = event.rule ?? '(rule)';
      const network = event.network ?? '(network)';
      const pairKey = `${rule}\u0000${network}`;
      if (name === 'network.rule_triggered') {
        if (openMembers.has(pairKey)) continue;
        const member: Member = {
          id: event.incident ?? `${rule}/${network}/${event.at}`,
          rule,
          network,
          openedAt: event.at,
          resolvedAt: null,
          values: [...(event.values ?? []), ...(event.value === undefined ? [] : [event.value])],
          level: alertLevel(event as unknown as AlertRecord),
        };
        members.push(member);
        openMembers.set(pairKey, member);
      } else {
        const open = openMembers.get(pairKey);
        if (open !== undefined) {
          open.resolvedAt = event.at;
          openMembers.delete(pairKey);
        } else {
          members.push({
            id: event.incident ?? `${rule}/${network}/${windowStart}`,
            rule,
            network,
            openedAt:
              event.triggeredAt !== undefined && event.triggeredAt >= windowStart
                ? event.triggeredAt
                : windowStart,
            resolvedAt: event.at,
            values: [],
            level: 'critical',
          });
        }
      }
      continue;
    }
    if (name === 'filter.status_changed') {
      const severity =
        event.severity ??
        (options.expected === undefined || event.to === undefined
          ? undefined
          : event.to === options.expected
            ? 'resolved'
            : 'high');
      if (severity === 'high') {
        const open = openByKind.get('status');
        const detail = `status ${JSON.stringify(event.to ?? '?')}`;
        if (open !== undefined) {
          open.detail = detail;
          continue;
        }
        const draft: Draft = {
          id: event.incident ?? `filter.status_changed/${event.at}`,
          kind: 'status',
          openedAt: event.at,
          resolvedAt: null,
          level: 'critical',
          detail,
        };
        drafts.push(draft);
        openByKind.set('status', draft);
      } else if (severity === 'resolved') {
        closeDraft('status', event.at, 'critical', event.incident);
      }
      continue;
    }
    const opener = OPENERS[name];
    if (opener !== undefined) {
      if (openByKind.has(opener.kind)) continue;
      const draft: Draft = {
        id: idOf(event),
        kind: opener.kind,
        openedAt: event.at,
        resolvedAt: null,
        level: alertLevel(event as unknown as AlertRecord),
        ...(event.detail === undefined ? {} : { detail: event.detail }),
      };
      drafts.push(draft);
      openByKind.set(opener.kind, draft);
      continue;
    }
    const closes = CLOSERS[name];
    if (closes !== undefined) closeDraft(closes, event.at, 'error', idOf(event));
  }
  const incidents: ReportIncident[] = [
    ...drafts.map(
      (d): ReportIncident => ({
        id: d.id,
        kind: d.kind,
        rule: null,
        state: d.resolvedAt === null ? 'open' : 'resolved',
        openedAt: d.openedAt,
        resolvedAt: d.resolvedAt,
        networks: [],
        acknowledged: false,
        level: d.level,
        ...(d.detail === undefined ? {} : { detail: d.detail }),
      }),
    ),
    ...groupRuleMembers(members, rules),
  ];
  return incidents.sort(
    (a, b) =>
      Number(b.state === 'open') - Number(a.state === 'open') ||
      (a.openedAt < b.openedAt ? 1 : a.openedAt > b.openedAt ? -1 : 0),
  );
}

/** One rule's members whose intervals overlap become one incident; a network's members within it merge. */
function groupRuleMembers(members: readonly Member[], rules: ReadonlyMap<string, Rule>): ReportIncident[] {
  const byRule = new Map<string, Member[]>();
  for (const member of members) byRule.set(member.rule, [...(byRule.get(member.rule) ?? []), member]);
  const out: ReportIncident[] = [];
  for (const [name, list] of byRule) {
    const rule = rules.get(name);
    const direction = peakDirection(rule?.op);
    list.sort((a, b) => (a.openedAt < b.openedAt ? -1 : a.openedAt > b.openedAt ? 1 : 0));
    let group: Member[] = [];
    let end: string | null = '';
    const flush = () => {
      if (group.length === 0) return;
      const first = group[0]!;
      const networks = new Map<string, IncidentNetwork>();
      for (const m of group) {
        const before = networks.get(m.network);
        let peak: number | boolean | null = before?.peak ?? null;
        let peakAt = before?.peakAt ?? null;
        for (const v of m.values) {
          if (beyond(v, peak, direction)) {
            peak = v;
            peakAt = m.openedAt;
          }
        }
        networks.set(m.network, {
          network: m.network,
          peak,
          peakAt,
          openedAt: before?.openedAt ?? m.openedAt,
          resolvedAt:
            before === undefined
              ? m.resolvedAt
              : before.resolvedAt === null || m.resolvedAt === null
                ? null
                : m.resolvedAt > before.resolvedAt
                  ? m.resolvedAt
                  : before.resolvedAt,
        });
      }
      out.push({
        id: first.id,
        kind: 'rule',
        rule: name,
        state: end === null ? 'open' : 'resolved',
        openedAt: first.openedAt,
        resolvedAt: end,
        networks: [...networks.values()],
        acknowledged: false,
        level: first.level,
        ...(rule === undefined ? {} : { detail: rule.text, op: rule.op, path: rule.path }),
      });
      group = [];
    };
    for (const member of list) {
      // Overlaps the group: opened before the group's last member resolved (or while one is open).
      if (group.length > 0 && (end === null || (end !== '' && member.openedAt <= end))) {
        group.push(member);
      } else {
        flush();
        group = [member];
        end = '';
      }
      end =
        member.resolvedAt === null || end === null
          ? null
          : end === '' || member.resolvedAt > end
            ? member.resolvedAt
            : end;
    }
    flush();
  }
  return out;
}

/** A window of one network's figure whose extreme is wanted: the time a rule incident held on it. */
export interface PeakWatch {
  /** `incident id` NUL `network`. */
  readonly key: string;
  readonly network: string;
  readonly path: string;
  /** Epoch ms, inclusive. */
  readonly fromMs: number;
  readonly toMs: number;
  readonly direction: 'max' | 'min';
}

/** The key of one network of one incident in {@link PeakWatch} and {@link withObservedPeaks}. */
export const peakKey = (incident: string, network: string): string => `${incident}\u0000${network}`;

/** The windows whose extremes give each rule incident's per-network peak: one per network of a rule with a known path. */
export function peakWatches(incidents: readonly ReportIncident[], untilMs: number): PeakWatch[] {
  return incidents.flatMap((incident) =>
    incident.path === undefined
      ? []
      : incident.networks.map((n) => ({
          key: peakKey(incident.id, n.network),
          network: n.network,
          path: incident.path!,
          fromMs: Date.parse(n.openedAt),
          toMs: n.resolvedAt === null ? untilMs : Date.parse(n.resolvedAt),
          direction: peakDirection(incident.op),
        })),
  );
}

/** The incidents with the peaks seen in the snapshots where they go further than the events' values. */
export function withObservedPeaks(
  incidents: readonly ReportIncident[],
  observed: ReadonlyMap<string, { readonly value: number; readonly at: number }>,
): ReportIncident[] {
  return incidents.map((incident) => {
    if (incident.kind !== 'rule') return incident;
    const direction = peakDirection(incident.op);
    return {
      ...incident,
      networks: incident.networks.map((n) => {
        const seen = observed.get(peakKey(incident.id, n.network));
        if (seen === undefined || !beyond(seen.value, n.peak, direction)) return n;
        return { ...n, peak: seen.value, peakAt: new Date(seen.at).toISOString() };
      }),
    };
  });
}

/** The incident as a row of `shieldwatch incidents --format json` (CONTRACT §13). */
export function incidentRow(incident: ReportIncident): IncidentRow {
  return {
    id: incident.id,
    kind: incident.kind,
    rule: incident.rule,
    state: incident.state,
    openedAt: incident.openedAt,
    resolvedAt: incident.resolvedAt,
    networks: incident.networks.map((n) => ({ network: n.network, peak: n.peak, peakAt: n.peakAt })),
    acknowledged: incident.acknowledged,
  };
}
