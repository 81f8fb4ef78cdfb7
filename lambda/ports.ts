import type { MonitorState } from './core/detect/decide.ts';
import type { HealthState } from './core/detect/network-health.ts';
import type {
  IncidentMember,
  IncidentScopeState,
  IncidentStory,
  ShardMembers,
} from './core/incidents/incidents.ts';
import type { Rule, RuleAlertFields, RuleState } from './core/rules/rule-types.ts';
import type { HeldChanges, Silence } from './core/silences/silence.ts';
import type {
  AlertEvent,
  AlertRecord,
  ApiFailureKind,
  ApiResponse,
  HealthMember,
  NewAlertRecord,
  RenderedAlert,
  Severity,
  Snapshot,
  Target,
} from './core/types.ts';

/** Per-request limits handed down by the cycle. */
export interface RequestContext {
  /** Aborts the request (and any wait for a slot or a retry). */
  readonly signal?: AbortSignal;
  /** Epoch ms; no attempt or back-off goes past it. */
  readonly deadlineMs?: number;
}

/** The protection API, as the cycle needs it. Implementations never throw: failures are responses. */
export interface ProtectionApi {
  getUser(ctx?: RequestContext): Promise<ApiResponse>;
  getFilterStatus(ctx?: RequestContext): Promise<ApiResponse>;
  getNetworkRealtime(networkId: string, ctx?: RequestContext): Promise<ApiResponse>;
}

/** Resolves the API key; cached by implementations across warm invocations. */
export interface ApiKeyProvider {
  get(): Promise<string>;
  /** Forget a cached key (after the API rejected it), so the next `get` reads it again. */
  invalidate(): void;
}

/** Time window and size of a history query. */
export interface HistoryQuery {
  /** Inclusive lower bound, ISO-8601. */
  readonly since?: string;
  /** Inclusive upper bound, ISO-8601. */
  readonly until?: string;
  /** Keep only the most recent N (still returned oldest first). */
  readonly limit?: number;
  /** Called after each page read, for progress feedback. */
  readonly onPage?: (itemsSoFar: number) => void;
}

/** A stored alert event (status transition, incident or rule alert), as `events` lists it. */
export interface StoredEvent extends Partial<RuleAlertFields> {
  readonly at: string;
  readonly event: AlertEvent;
  readonly from?: string;
  readonly to?: string;
  readonly seq: number;
  readonly detail?: string;
  /** The silence that suppressed this alert: recorded, never sent (docs/silences.md). */
  readonly suppressedBy?: string;
  /** Status changes with an expected status: `high` away from it, `resolved` back to it. */
  readonly severity?: Severity;
  /** Recoveries and status changes: when what ended was first seen, ISO-8601. */
  readonly previousSince?: string;
  /** `incident.*`: the members the alert was about, and the incident's totals. */
  readonly story?: IncidentStory;
  /** `incident.*`: when the incident opened (also `story.openedAt`, when the item has a story). */
  readonly openedAt?: string;
  /** A blind spot's alert (docs/alerts.md, Blind spots): the networks it names, those still failing, a rule's path. */
  readonly members?: readonly HealthMember[];
  readonly remaining?: readonly string[];
  readonly path?: string;
  /** `incident.acknowledged`: who acknowledged (the note is `detail`). */
  readonly acknowledgedBy?: string;
}

/** Where observations are kept. */
export interface SnapshotStore {
  /** Stores every snapshot, expiring at `expiresAt` (epoch seconds). Throws when the store cannot be written. */
  putSnapshots(snapshots: readonly Snapshot[], expiresAt: number): Promise<void>;
  /** Snapshots of one target, oldest first. */
  querySnapshots(target: Target, query: HistoryQuery): Promise<Snapshot[]>;
  /** Alert events, oldest first. */
  queryEvents(query: HistoryQuery): Promise<StoredEvent[]>;
  /** The same store, its calls aborted (rejected, their requests ended) once `signal` aborts. */
  withSignal?(signal: AbortSignal): SnapshotStore;
}

/** An alert in the outbox together with its delivery bookkeeping. */
export type OutboxEntry = AlertRecord & OutboxBookkeeping;

/** What the outbox keeps about an alert's delivery. */
export interface OutboxBookkeeping {
  /** Cycle that holds the right to send it, until `claimUntil` (epoch ms). */
  readonly claimedBy?: string;
  readonly claimUntil?: number;
  /** Failed publish attempts so far. */
  readonly failures?: number;
  readonly lastError?: string;
  /** True when the alert was moved out of the state item into an item of its own (a long outage). */
  readonly spilled?: boolean;
}

/** Which outbox alert, and where it lives. */
export type OutboxRef = Pick<OutboxEntry, 'seq' | 'spilled'>;

/** A state with its optimistic-locking version and its outbox: the monitor's, or a rule scope's. */
export interface VersionedState<S = MonitorState> {
  readonly state: S;
  /** 0 when nothing is stored yet. */
  readonly version: number;
  /** Alerts not yet published, in sequence order. */
  readonly outbox: readonly OutboxEntry[];
  /** What the scope's silences hold back that still holds (docs/silences.md); absent: nothing. */
  readonly held?: HeldChanges;
  /** Counts the writes of `held` (optimistic locking apart from the state's version); 0 when never written. */
  readonly heldRev?: number;
}

/**
 * What one rule item holds (docs/design/rule-state.md): the rule memory of a shard's
 * networks (or a chunk of them) and the sequence number of its next alert (sequence numbers are per item).
 */
export interface RuleScopeState {
  readonly rules: RuleState;
  readonly nextSeq: number;
}

/**
 * A state and its outbox (the monitor's, or a rule scope's), changed only by conditional writes so that
 * duplicate or concurrent cycles cannot both apply a decision or both send an alert.
 */
export interface StateStore<S = MonitorState> {
  /** Strongly consistent read. */
  load(): Promise<VersionedState<S>>;
  /**
   * Writes the new state and appends the new alerts to the outbox in one conditional write, already claimed
   * by `claim` when given (so the committing cycle needs no separate claim to send them).
   * Returns false when another cycle changed the state since `expectedVersion` was read.
   */
  commit(
    next: S,
    expectedVersion: number,
    alerts: readonly AlertRecord[],
    claim?: { readonly claimant: string; readonly untilMs: number },
  ): Promise<boolean>;
  /** Takes the right to send an alert until `untilMs`; false when another live claim holds it or it is gone. */
  claim(entry: OutboxRef, claimant: string, nowMs: number, untilMs: number): Promise<boolean>;
  /**
   * Records the alert as an event (idempotent); called before publishing, so history never misses one.
   * Resolves with the SNS message id recorded for it by {@link markPublished} when an earlier cycle published
   * it already, otherwise undefined.
   */
  recordEvent(alert: AlertRecord): Promise<string | undefined>;
  /**
   * Records with the alert's event that SNS accepted it as `messageId`, for when its removal from the outbox
   * failed: a later cycle that claims it then removes it without publishing it again.
   */
  markPublished(alert: AlertRecord, messageId: string): Promise<void>;
  /** Records with the alert's event that the silence `silenceId` suppressed it (docs/silences.md). */
  markSuppressed(alert: AlertRecord, silenceId: string): Promise<void>;
  /** Removes a published alert from the outbox (only while `claimant` holds it). */
  complete(entry: OutboxRef, claimant: string): Promise<void>;
  /**
   * Removes a handled alert from the outbox like {@link complete} and stores `held` as what the scope's silences
   * hold back, only while `claimant` holds the alert and nothing else wrote `held` since revision `heldRev`: one
   * conditional write when the alert is in the state item (else `held` first, then the alert's own item). False
   * when either changed meanwhile: read again and decide again.
   */
  settle(entry: OutboxRef, claimant: string, held: HeldChanges, heldRev: number): Promise<boolean>;
  /**
   * Appends announcements made at a silence's end (docs/silences.md) to the outbox, numbered from the state's
   * next sequence number (which moves past them), already claimed by `claim`, with `held` as what is left held
   * back: one write, only if neither the state's version nor `held` changed since `loaded` was read. The alerts
   * appended, or undefined when the item changed meanwhile.
   */
  announce(
    loaded: VersionedState<S>,
    alerts: ReadonlyArray<NewAlertRecord>,
    held: HeldChanges,
    claim: { readonly claimant: string; readonly untilMs: number },
  ): Promise<AlertRecord[] | undefined>;
  /**
   * Gives the claim back, noting the error of a failed publish when given; the next cycle sends it.
   */
  release(entry: OutboxRef, claimant: string, error?: string): Promise<void>;
  /**
   * Moves committed, unclaimed alerts out of the state item into items of their own, so a long SNS outage
   * cannot grow the state item to DynamoDB's item limit. False (nothing moved) when one of them was claimed
   * or sent meanwhile.
   */
  spill(entries: readonly OutboxEntry[], nowMs: number): Promise<boolean>;
  /** The same store, its calls aborted (rejected, their requests ended) once `signal` aborts. */
  withSignal?(signal: AbortSignal): StateStore<S>;
}

/** One rule item: its key, the networks whose rule state it holds, and its store. */
export interface RuleScope {
  /** Sort key of the item under pk `state` (`rules#<shard>`, or `rules#<shard>#<chunk>`). */
  readonly key: string;
  readonly networks: readonly string[];
  /** Most alerts one commit may append to the item, and that it keeps before the oldest move out. */
  readonly maxAlerts: number;
  readonly store: StateStore<RuleScopeState>;
}

/** Where rule state lives (docs/design/rule-state.md). */
export interface RuleStateStore {
  /**
   * The rule items of a shard (the CLI and an unsharded stack are shard 0): its networks that some rule
   * watches, in as many items as keep each far below DynamoDB's item limit. None without rules.
   */
  ruleScopes(shard: number, rules: readonly Rule[], networks: readonly string[]): RuleScope[];
  /**
   * Every rule item the shard has in the store, planned by today's configuration or left by an earlier one:
   * one strongly consistent Query on the shard's keys, paged, instead of one read per planned item.
   */
  findRuleItems(shard: number): Promise<FoundRuleItem[]>;
  /**
   * The store of one rule item by its sort key, for a handover to an item that is not stored yet
   * (docs/design/rule-state.md); without it such a handover waits.
   */
  ruleItem?(key: string): StateStore<RuleScopeState>;
  /**
   * Deletes a rule item that no plan names, only while it is unchanged since `version` (and `heldRev`), its
   * outbox is empty and nothing of it is spilled. False when any of that no longer holds.
   */
  discardRuleItem(key: string, version: number, heldRev?: number): Promise<boolean>;
  /** The same store, its calls aborted (rejected, their requests ended) once `signal` aborts. */
  withSignal?(signal: AbortSignal): RuleStateStore;
}

/** Where each shard's network health lives (`network-health.ts`; docs/design/storage.md). */
export interface HealthStateStore {
  /** The health item of shard `shard` (`health#<shard>`): its state and its outbox. */
  healthScope(shard: number): StateStore<HealthState>;
}

/** Where incidents across networks live (docs/design/incidents.md): one item per rule. */
export interface IncidentStore {
  /** The incident item of `rule` (`incident#<rule>`): its state and its outbox. */
  incidentScope(rule: string): StateStore<IncidentScopeState>;
  /** Every incident item, as read with one strongly consistent Query (for the CLI and the status). */
  findIncidentScopes(): Promise<FoundIncidentScope[]>;
  /** Each shard's members of the incidents (docs/design/incidents.md, Any size). */
  readonly members: IncidentMemberStore;
  /** The same store, its calls aborted (rejected, their requests ended) once `signal` aborts. */
  withSignal?(signal: AbortSignal): IncidentStore;
}

/** A shard's working set as read: its members and the version its next write is conditioned on. */
export interface LoadedMembers {
  readonly set: ShardMembers;
  /** 0: no item yet. */
  readonly version: number;
  /** Items the set no longer uses (removed after its next write). */
  readonly stale: readonly string[];
}

/** Where each shard keeps its members of each rule's incident, and finished incidents theirs. */
export interface IncidentMemberStore {
  /** The shard's working set of `rule` (one strongly consistent Query). */
  loadMembers(rule: string, shard: number): Promise<LoadedMembers>;
  /** Writes the working set if its version is still the one read: false when another cycle wrote first. */
  writeMembers(rule: string, shard: number, set: ShardMembers, loaded: LoadedMembers): Promise<boolean>;
  /** Keeps a finished incident's working set of one shard (idempotent). */
  archiveMembers(rule: string, shard: number, set: ShardMembers): Promise<void>;
  /** Every member of incident `id` of `rule`, across shards: working sets and archives. */
  membersOf(rule: string, id: string): Promise<IncidentMember[]>;
  /** The same store, its calls aborted once `signal` aborts. */
  withSignal?(signal: AbortSignal): IncidentMemberStore;
}

/** An incident item found in the store. */
export interface FoundIncidentScope {
  readonly rule: string;
  readonly loaded: VersionedState<IncidentScopeState>;
  readonly store: StateStore<IncidentScopeState>;
}

/** A rule item found in the store: its key, its state and outbox as read, and its store. */
export interface FoundRuleItem {
  readonly key: string;
  readonly loaded: VersionedState<RuleScopeState>;
  readonly store: StateStore<RuleScopeState>;
}

/** Silences (docs/silences.md), as the outbox reads them; the CLI's adapter also creates and ends them. */
export interface SilenceStore {
  /** Every stored silence, ended ones included until they expire. */
  list(): Promise<Silence[]>;
  /** The same store, its calls aborted (rejected, their requests ended) once `signal` aborts. */
  withSignal?(signal: AbortSignal): SilenceStore;
}

/** Sends a rendered alert. */
export interface AlertPublisher {
  /** Where alerts go, for summaries (`sns:<arn>`, `log`). */
  readonly target: string;
  /** Resolves with the message id; rejects when the alert was not accepted or `signal` aborted first. */
  publish(alert: RenderedAlert, signal?: AbortSignal): Promise<string>;
}

/** Structured log lines; Powertools Logger fits as it is. */
export interface CycleLog {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/** Metrics of a cycle; the Lambda sends them as CloudWatch EMF, the CLI ignores them. */
export interface CycleMetrics {
  cycleCompleted(durationMs: number): void;
  apiFailure(kind: ApiFailureKind): void;
  latency(target: Target, ms: number): void;
  figures(networkId: string, figures: ReadonlyArray<readonly [string, number]>): void;
  statusChanged(): void;
  /**
   * A publish succeeded or failed; for one that succeeded, the time from the observation the alert is about to
   * the publish (ms), when known.
   */
  alertPublished(ok: boolean, timeToAlertMs?: number): void;
}
