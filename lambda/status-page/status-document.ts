/**
 * The hosted page's `status.json` (CONTRACT §15, docs/status-page.md): the filter status and since when, the
 * open incidents from the one listing (`readIncidentListing`: every open one, whatever its kind and age, with
 * the alerts' ids, states and acknowledgements), the silences that hold now, the last cycle. Pure: no store, no
 * clock.
 */

import { type IncidentView, listingRow } from '../core/incidents/incident-list.ts';
import type { IncidentKind, IncidentRow } from '../core/incidents/incidents.ts';
import type { Present, PresentSilence } from '../report/data.ts';
import { publicIncidentId } from './public-id.ts';

/** Who the page is for: the operator (`private`, signed URLs) or the operator's customers (`public`). */
export type PageMode = 'private' | 'public';

/** An open incident as the public page shows it: its kind, since when, how many networks; nothing else. */
export interface PublicIncident {
  /** Opaque: an HMAC of the incident's id under a key of the stack (`public-id.ts`), stable across publishes. */
  readonly id: string;
  readonly kind: IncidentKind;
  readonly openedAt: string;
  /** How many networks it concerns, not which. */
  readonly networkCount: number;
}

/** `status.json`. */
export interface StatusDocument {
  /** The last filter status seen (exact), `(unreadable)`, or null when nothing was seen in the window. */
  readonly status: string | null;
  /** Since when that status holds, ISO-8601 (within the window read). */
  readonly since: string | null;
  /**
   * Every open incident (acknowledged ones too), oldest first. Private: rows as `shieldwatch incidents --format
   * json` prints them (CONTRACT §13); public: {@link PublicIncident}.
   */
  readonly openIncidents: ReadonlyArray<IncidentRow | PublicIncident>;
  /** When the newest filter snapshot was taken, ISO-8601: how fresh the page's view is. */
  readonly lastCycleAt: string | null;
  /** When the page was written, ISO-8601. */
  readonly generatedAt: string;
  /** True when an expected status is configured and the status is another. */
  readonly away: boolean;
  /** Private: the silences active now (id, pattern, reason, end) and the next one. */
  readonly silences?: readonly PresentSilence[];
  /** Public: alerts are silenced for maintenance until this time (ISO-8601), or null. */
  readonly maintenanceUntil?: string | null;
}

/** What the document is made of. */
export interface StatusDocumentInput {
  /** The report's present (the longest window's): the status, since when, away, the silences. */
  readonly present: Pick<Present, 'status' | 'statusSince' | 'away' | 'silences'>;
  readonly generatedAt: string;
  /** The one listing of incidents: its open ones are listed. */
  readonly incidents: readonly IncidentView[];
  readonly lastCycleAt: string | null;
}

/** When the active silences end, the last of them; null when none holds. */
export function maintenanceUntil(silences: readonly PresentSilence[]): string | null {
  const ends = silences.filter((s) => s.active).map((s) => s.endsAt);
  return ends.length === 0 ? null : ends.reduce((a, b) => (a > b ? a : b));
}

/**
 * The status document. Private: the open incidents as rows of CONTRACT §13, the silences. Public: each open
 * incident's kind, time and count of networks under an opaque id ({@link publicIncidentId} with `publicIdKey`),
 * and "maintenance until"; no rule, network, figure, silence pattern or reason.
 */
export function statusDocument(
  input: StatusDocumentInput,
  mode: PageMode,
  publicIdKey?: string,
): StatusDocument {
  const { present } = input;
  const open = input.incidents.filter((view) => view.state !== 'resolved');
  if (mode === 'public' && publicIdKey === undefined) {
    throw new Error('the public status page needs its public id key');
  }
  return {
    status: present.status,
    since: present.statusSince === null ? null : new Date(present.statusSince).toISOString(),
    openIncidents: open.map((view) =>
      mode === 'private' ? listingRow(view) : publicIncident(view, publicIdKey!),
    ),
    lastCycleAt: input.lastCycleAt,
    generatedAt: input.generatedAt,
    away: present.away,
    ...(mode === 'private'
      ? { silences: present.silences }
      : { maintenanceUntil: maintenanceUntil(present.silences) }),
  };
}

/** An incident reduced to what a customer may see. */
export function publicIncident(view: IncidentView, key: string): PublicIncident {
  return {
    id: publicIncidentId(key, view.id),
    kind: view.kind,
    openedAt: view.openedAt,
    networkCount: Math.max(view.members.length, view.networks.length),
  };
}
