/**
 * The hosted page's `status.json` (CONTRACT §15, docs/status-page.md): the filter status and since when, the
 * open incidents, the last cycle, made from the report's data. Pure: no store, no clock.
 */

import { createHash } from 'node:crypto';
import type { ReportData } from '../report/data.ts';
import { type IncidentRow, incidentRow, type ReportIncident } from '../report/incidents.ts';

/** Who the page is for: the operator (`private`, signed URLs) or the operator's customers (`public`). */
export type PageMode = 'private' | 'public';

/** An open incident as the public page shows it: what kind and since when; no network, rule or figure. */
export interface PublicIncident {
  /** A stable opaque id (a hash of the incident's id, which may name the rule and the network). */
  readonly id: string;
  readonly kind: ReportIncident['kind'];
  readonly openedAt: string;
  /** How many networks it concerns (rule incidents), not which. */
  readonly networkCount: number;
}

/** `status.json`. */
export interface StatusDocument {
  /** The last filter status seen (exact), `(unreadable)`, or null when nothing was seen in the window. */
  readonly status: string | null;
  /** Since when that status holds, ISO-8601 (within the window read). */
  readonly since: string | null;
  /** Private: rows as `shieldwatch incidents --format json` prints them (networks and peaks); public: {@link PublicIncident}. */
  readonly openIncidents: ReadonlyArray<IncidentRow | PublicIncident>;
  /** When the newest filter snapshot was taken, ISO-8601: how fresh the page's view is. */
  readonly lastCycleAt: string | null;
  /** When the page was written, ISO-8601. */
  readonly generatedAt: string;
  /** True when an expected status is configured and the status is another. */
  readonly away: boolean;
}

/** The status document of a report's present; `public` leaves out networks, rules and figures. */
export function statusDocument(
  data: Pick<ReportData, 'present' | 'generatedAt'>,
  lastCycleAt: string | null,
  mode: PageMode,
): StatusDocument {
  const { present } = data;
  return {
    status: present.status,
    since: present.statusSince === null ? null : new Date(present.statusSince).toISOString(),
    openIncidents: present.open.map((incident) =>
      mode === 'private' ? incidentRow(incident) : publicIncident(incident),
    ),
    lastCycleAt,
    generatedAt: data.generatedAt,
    away: present.away,
  };
}

/** An incident reduced to what a customer may see. */
export function publicIncident(incident: ReportIncident): PublicIncident {
  return {
    id: createHash('sha256').update(incident.id).digest('hex').slice(0, 16),
    kind: incident.kind,
    openedAt: incident.openedAt,
    networkCount: incident.networks.length,
  };
}
