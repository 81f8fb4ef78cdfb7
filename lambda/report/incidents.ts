/**
 * The report's incidents (docs/report.md): the one listing of incidents (CONTRACT §15, "One view";
 * `listIncidents`, read by `lambda/adapters/incident-listing.ts`) as the page shows them: every open incident
 * whatever its kind and age, and those that opened or resolved in the window; with the ids of the alerts, their
 * states, acknowledgements, members and peaks. A member the listing knows no peak of gets the most extreme value
 * the window's snapshots show while it was in the incident ({@link peakWatches}, {@link withObservedPeaks}).
 * Pure: no store, no clock.
 */
import type { AlertLevel } from '../core/alerts/alert-documents.ts';
import type { IncidentView } from '../core/incidents/incident-list.ts';
import type { Acknowledgement, IncidentKind, IncidentSpread } from '../core/incidents/incidents.ts';
import type { Rule, RuleOp } from '../core/rules/rule-types.ts';
import { parseRules } from '../core/rules/rules.ts';
import type { StoredEvent } from '../ports.ts';

export type { IncidentKind } from '../core/incidents/incidents.ts';

/** Most networks of one incident the page names (worst first); `shieldwatch incidents show ID` lists them all. */
export const MAX_SHOWN_NETWORKS = 20;

/** One network of an incident. */
export interface IncidentNetwork {
  readonly network: string;
  /** Its worst reading while in the incident (highest for `>`, lowest for `<`), or null when none is known. */
  readonly peak: number | boolean | null;
  /** When the peak was seen, ISO-8601. */
  readonly peakAt: string | null;
  /** Its reading when it joined the incident (at `openedAt`), when known: where the attack began on it. */
  readonly first?: number | boolean;
  /** When it joined the incident and when it left (null: still in it), ISO-8601. */
  readonly openedAt: string;
  readonly resolvedAt: string | null;
}

/** An incident as the report shows it. */
export interface ReportIncident {
  /** The alerts' id (the `sqs` document's `incident`, PagerDuty's `dedup_key`). */
  readonly id: string;
  readonly kind: IncidentKind;
  /** The rule's name (a rule's incident, a rule reading nothing), else null. */
  readonly rule: string | null;
  /** What it is about, in a few words (the listing's). */
  readonly about: string;
  readonly state: 'open' | 'acknowledged' | 'resolved';
  /** ISO-8601. */
  readonly openedAt: string;
  readonly resolvedAt: string | null;
  /** Its networks in joining order, at most {@link MAX_SHOWN_NETWORKS} (the worst when more). */
  readonly networks: IncidentNetwork[];
  /** How many networks it has (more than `networks` lists when past the cap). */
  readonly networkCount: number;
  /** Who acknowledged it, when, and the note (CONTRACT §14). */
  readonly acknowledged?: Acknowledgement;
  /** The severity its opening alert has (`critical`, `error`, `warning`): its colour. */
  readonly level: AlertLevel;
  /** Words about it: the rule as written, the status it went to, the API's last error, a blind spot's networks. */
  readonly detail?: string;
  /** Rule incidents: the rule's operator, for which way a peak goes. */
  readonly op?: RuleOp;
  /** Rule incidents: the figure the rule reads. */
  readonly path?: string;
  /** Rule incidents: the unit of that figure (docs/report.md, units), for its peaks. */
  readonly unit?: string;
  /** Rule incidents: the threshold of a rule that triggers above a number, for the peak's multiple of it. */
  readonly threshold?: number;
  /** A rule's incident across networks: how it spread, the network that opened it and the last to join. */
  readonly spread?: IncidentSpread;
}

/** The severity of each kind's opening alert (docs/alerts.md): a colour for the page. */
const KIND_LEVEL: Readonly<Record<IncidentKind, AlertLevel>> = {
  status: 'critical',
  api: 'error',
  network: 'error',
  rule_unreadable: 'warning',
  rule: 'critical',
};

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

/** The window a report covers, epoch ms. */
export interface ReportWindow {
  readonly sinceMs: number;
  readonly untilMs: number;
}

/** Whether the report lists `view`: open (whatever its age), or opened or resolved in the window. */
export function inReport(
  view: Pick<IncidentView, 'state' | 'openedAt' | 'resolvedAt'>,
  window: ReportWindow,
) {
  const opened = Date.parse(view.openedAt);
  if (Number.isFinite(opened) && opened > window.untilMs) return false;
  if (view.state !== 'resolved') return true;
  const resolved = view.resolvedAt === undefined ? Number.NaN : Date.parse(view.resolvedAt);
  return Number.isFinite(resolved) ? resolved >= window.sinceMs : opened >= window.sinceMs;
}

/** A member's networks as shown: joining order; past the cap, the worst ({@link MAX_SHOWN_NETWORKS}). */
function shownNetworks(view: IncidentView, direction: 'max' | 'min'): IncidentNetwork[] {
  const all = view.members.map(
    (m): IncidentNetwork => ({
      network: m.network,
      peak: m.peak ?? null,
      peakAt: m.peakAt ?? null,
      ...(m.first === undefined ? {} : { first: m.first }),
      openedAt: m.joinedAt,
      resolvedAt: m.leftAt ?? view.resolvedAt ?? null,
    }),
  );
  // A view with networks but no members (a row of §13 only): its networks and peaks.
  const members =
    all.length > 0 || view.networks.length === 0
      ? all
      : view.networks.map(
          (n): IncidentNetwork => ({
            network: n.network,
            peak: n.peak ?? null,
            peakAt: n.peakAt ?? null,
            openedAt: view.openedAt,
            resolvedAt: view.resolvedAt ?? null,
          }),
        );
  if (members.length <= MAX_SHOWN_NETWORKS) return members;
  const rank = (a: IncidentNetwork, b: IncidentNetwork) =>
    a.peak === null
      ? Number(b.peak !== null)
      : b.peak === null || beyond(a.peak, b.peak, direction)
        ? -1
        : Number(beyond(b.peak, a.peak, direction));
  const worst = new Set([...members].sort(rank).slice(0, MAX_SHOWN_NETWORKS));
  return members.filter((m) => worst.has(m));
}

/**
 * The incidents the report shows, open ones first, then newest first: every listed incident that is open
 * (whatever its age) or that opened or resolved in the window ({@link inReport}).
 */
export function reportIncidents(
  views: readonly IncidentView[],
  window: ReportWindow,
  rules: ReadonlyMap<string, Rule> = new Map(),
): ReportIncident[] {
  const incidents = views
    .filter((view) => inReport(view, window))
    .map((view): ReportIncident => {
      const rule = view.kind === 'rule' && view.rule !== undefined ? rules.get(view.rule) : undefined;
      const networks = shownNetworks(view, peakDirection(rule?.op));
      const detail = view.kind === 'rule' ? (view.ruleText ?? rule?.text) : view.detail;
      return {
        id: view.id,
        kind: view.kind,
        rule: view.rule ?? null,
        about: view.about,
        state: view.state,
        openedAt: view.openedAt,
        resolvedAt: view.resolvedAt ?? null,
        networks,
        networkCount: Math.max(view.members.length, view.networks.length),
        ...(view.acknowledged === undefined ? {} : { acknowledged: view.acknowledged }),
        level: KIND_LEVEL[view.kind] ?? 'error',
        ...(detail === undefined ? {} : { detail }),
        ...(rule === undefined ? {} : { op: rule.op, path: rule.path }),
        ...(rule !== undefined && (rule.op === '>' || rule.op === '>=') && rule.threshold.kind === 'number'
          ? { threshold: rule.threshold.value }
          : {}),
        ...(view.spread === undefined ? {} : { spread: view.spread }),
      };
    });
  const open = (i: ReportIncident) => Number(i.state !== 'resolved');
  return incidents.sort(
    (a, b) => open(b) - open(a) || (a.openedAt < b.openedAt ? 1 : a.openedAt > b.openedAt ? -1 : 0),
  );
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

/**
 * The windows whose extremes give a rule incident's network its peak where the listing knows none: one per such
 * network of a rule with a known path, within the report's window.
 */
export function peakWatches(incidents: readonly ReportIncident[], window: ReportWindow): PeakWatch[] {
  return incidents.flatMap((incident) =>
    incident.path === undefined
      ? []
      : incident.networks
          .filter((n) => n.peak === null)
          .map((n) => ({
            key: peakKey(incident.id, n.network),
            network: n.network,
            path: incident.path!,
            fromMs: Math.max(window.sinceMs, Date.parse(n.openedAt)),
            toMs: n.resolvedAt === null ? window.untilMs : Date.parse(n.resolvedAt),
            direction: peakDirection(incident.op),
          })),
  );
}

/** The incidents with the peaks the snapshots showed for networks whose peak the listing does not know. */
export function withObservedPeaks(
  incidents: readonly ReportIncident[],
  observed: ReadonlyMap<string, { readonly value: number; readonly at: number }>,
): ReportIncident[] {
  return incidents.map((incident) => {
    if (incident.kind !== 'rule') return incident;
    return {
      ...incident,
      networks: incident.networks.map((n) => {
        const seen = n.peak === null ? observed.get(peakKey(incident.id, n.network)) : undefined;
        return seen === undefined ? n : { ...n, peak: seen.value, peakAt: new Date(seen.at).toISOString() };
      }),
    };
  });
}
