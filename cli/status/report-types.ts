/**
 * What `shieldwatch status` shows, as data: the {@link StatusReport} that `--format json` prints and the table is
 * rendered from (cli/status/render.ts), built by cli/status/report.ts from what cli/status/gather.ts read.
 */
import type { IncidentKind } from '../../lambda/core/detect/decide.ts';
import type { FailureKind } from '../../lambda/core/types.ts';
import type { RuleScopeState, VersionedState } from '../../lambda/ports.ts';

/** How the confirmed filter status stands against the expected one. */
export type Standing = 'expected' | 'away' | 'no expected status';

/** The newest snapshot of a target, as `status` shows it. */
export interface LastObservation {
  readonly at: string;
  /** Milliseconds between `at` and the moment `status` ran. */
  readonly ageMs: number;
  readonly ok: boolean;
  readonly status?: string;
  readonly error?: string;
  readonly httpStatus?: number;
  readonly latencyMs?: number;
  /** A network's first numeric fields (dot path → value). */
  readonly figures?: Readonly<Record<string, number>>;
}

/** What `shieldwatch status --format json` prints. */
export interface StatusReport {
  /** When the report was made, ISO-8601. */
  readonly at: string;
  readonly filter: {
    /** The last confirmed status, exact; `null` before the first readable one. */
    readonly status: string | null;
    readonly since: string | null;
    readonly forMs: number | null;
    /** `SHIELDWATCH_EXPECTED_STATUS`, when set. */
    readonly expected: string | null;
    readonly standing: Standing;
    /** A new status seen fewer times in a row than the confirmations asked for. */
    readonly candidate: { readonly status: string; readonly count: number; readonly since: string } | null;
    /**
     * While the status is away from the expected one: its incident (`filter.status_changed/<when>`, what `ack`
     * takes), its escalation stage and its acknowledgement.
     */
    readonly incident: {
      readonly id: string;
      readonly stage: number;
      readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
    } | null;
    readonly last: LastObservation | null;
  };
  readonly networks: ReadonlyArray<{ readonly id: string; readonly last: LastObservation | null }>;
  /** Incidents about the monitor's view of the API: open ones, and those counting towards an alert. */
  readonly incidents: ReadonlyArray<{
    readonly kind: IncidentKind;
    readonly open: boolean;
    readonly since: string | null;
    readonly forMs: number | null;
    readonly cycles: number;
    readonly lastError: string | null;
    /** Once open: its id (`api.unreachable/<first failing cycle>`, what `ack` takes); null while counting. */
    readonly id: string | null;
    /** Escalation stage (1 until the first escalation). */
    readonly stage: number;
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /**
   * Open rule incidents, from every rule item of every shard: the rule, the network, since when, and the
   * value the rule reads in the network's newest stored snapshot (null when none is readable).
   */
  readonly ruleIncidents: ReadonlyArray<{
    readonly rule: string;
    readonly network: string;
    readonly since: string | null;
    readonly forMs: number | null;
    readonly incident: string | null;
    readonly value: number | boolean | null;
    readonly valueAt: string | null;
    /** True while the trigger's alert waits behind the per-item alert cap (docs/rules.md). */
    readonly held: boolean;
    /** The rule item it lives in (`rules#<shard>[#<chunk>]`). */
    readonly item: string;
    readonly state: 'open' | 'acknowledged';
    /** When it was acknowledged: `acknowledged.at` (kept for the readers of an earlier release). */
    readonly acknowledgedAt: string | null;
    /**
     * Who acknowledged, when, and the note, as its cell keeps them (`by` `unknown` for a cell that keeps when
     * only: written before who was kept, or past its item's budget; `incidents` then names who from its event).
     */
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /**
   * Open incidents across networks (`SHIELDWATCH_GROUP_BY=rule`, CONTRACT §13), from the incident items: one
   * per rule, with every network that joined (active ones first; each with its peak).
   * The table shows these instead of their rule's per-network rows (which stay in `ruleIncidents`).
   */
  readonly groupedIncidents: ReadonlyArray<{
    /** `<rule>@<openedAt>`: the `incident` of the alerts, PagerDuty's dedup_key. */
    readonly id: string;
    readonly rule: string;
    readonly state: 'open' | 'acknowledged';
    readonly since: string;
    readonly forMs: number;
    /** Escalation stage (1 until the first escalation). */
    readonly stage: number;
    readonly networks: ReadonlyArray<{
      readonly network: string;
      /** False once its rule resolved on it (the incident stays open for the others). */
      readonly active: boolean;
      /** Its worst reading in the incident, and when (the reading now: `ruleIncidents`). */
      readonly peak: number | boolean | null;
      readonly peakAt: string | null;
    }>;
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /**
   * Open blind-spot incidents (docs/alerts.md, Blind spots), from every shard's health item (`health#<shard>`):
   * a network whose own request keeps failing (`unreachable`), or a rule whose path reads nothing on networks
   * that answer (`rule_unreadable`), each with the networks still concerned.
   */
  readonly networkIncidents: ReadonlyArray<{
    /** `network.unreachable/<shard>/<at>` or `network.rule_unreadable/<rule>/<shard>/<at>`: what `ack` takes. */
    readonly id: string;
    readonly kind: 'unreachable' | 'rule_unreadable';
    readonly shard: number;
    /** The rule and its path (`rule_unreadable` only; the path null when the rule is no longer recorded). */
    readonly rule: string | null;
    readonly path: string | null;
    readonly since: string | null;
    readonly forMs: number | null;
    /** Escalation stage (1 until the first escalation). */
    readonly stage: number;
    /** The networks still failing (or reading nothing), each since when and how its last request failed. */
    readonly networks: ReadonlyArray<{
      readonly network: string;
      readonly since: string;
      readonly cycles: number;
      readonly failure: FailureKind | null;
      readonly httpStatus: number | null;
    }>;
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /** What the monitor's own cycles recorded: the last applied cycle, its networks and the rules in force. */
  readonly monitor: {
    /** The observation time of the last cycle that recorded them; null when none did (none ran, or an older version). */
    readonly lastCycleAt: string | null;
    /** The monitor's networks: its last cycle's, and those any rule item (of any shard) judges. */
    readonly networks: readonly string[];
    readonly rules: readonly string[];
  };
  /** Where the networks shown come from: the monitor's record, or `--networks`. */
  readonly networksFrom: 'monitor' | 'option';
  /**
   * Active silences (and those set to start later; a maintenance window's occurrences among them, under the
   * window's id), the soonest to end first, with their time left.
   */
  readonly silences: ReadonlyArray<StatusSilence>;
  /**
   * The quiet time of the present (CONTRACT §15, §17): the active silence or maintenance window occurrence that
   * ends last, and the one that starts next; each null when there is none. Both are among `silences`.
   */
  readonly quiet: { readonly active: StatusSilence | null; readonly next: StatusSilence | null };
  /**
   * Alerts waiting, per outbox: `monitor`, then each rule item by key, then each incident item
   * (`incident#<rule>`), then each shard's health item (`health#<shard>`). Only outboxes with alerts.
   */
  readonly outboxes: ReadonlyArray<{ readonly outbox: string; readonly pending: number }>;
  /** Alerts in every outbox: decided, not yet published (or their removal not yet written). */
  readonly pending: ReadonlyArray<{
    /** `monitor`, or the rule, incident or health item's key. */
    readonly outbox: string;
    readonly rule: string | null;
    readonly network: string | null;
    readonly value: number | boolean | null;
    readonly seq: number;
    readonly event: string;
    readonly at: string;
    readonly from: string | null;
    readonly to: string | null;
    readonly failures: number;
    readonly lastError: string | null;
    readonly claimed: boolean;
  }>;
}

/** A rule item as `status` reads it: its key, state and outbox. */
export interface RuleItemView {
  readonly key: string;
  readonly loaded: VersionedState<RuleScopeState>;
}

/** A silence (or a maintenance window's occurrence) as `status` shows it. */
export interface StatusSilence {
  readonly id: string;
  readonly status: 'active' | 'pending';
  readonly pattern: string;
  readonly reason: string | null;
  readonly startsAt: string;
  readonly endsAt: string;
  /** From now to its end. */
  readonly remainingMs: number;
}
