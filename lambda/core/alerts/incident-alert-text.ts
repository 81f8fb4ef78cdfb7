/**
 * The texts of the `grouped` family (docs/alerts.md, Incidents; docs/design/incidents.md): an incident of one
 * rule across networks opened, updated with networks that joined, reminded, resolved. The subject and SMS
 * name the rule, how many networks and the worst one with its peak against the threshold
 * (`[shieldwatch] flood on 37 networks: peak 1.2M on edge-1 (traffic.in.pps > 500k)`); the email lists every
 * network of the alert with its value and peak; the documents carry `networks` and `peaks`. Every text keeps
 * its channel's size limit with 1,000 networks. Pure; nothing here throws on a record of the right shape.
 */

import type { IncidentStory, StoryMember } from '../incidents/incidents.ts';
import { kindOf, type RuleCondition } from '../rules/rule-kinds/index.ts';
import type { AlertRecord, IncidentAlertRecord } from '../types.ts';
import { formatDuration, momentOf } from './alert-time.ts';
import { escapeHidden, foldVisible, shorten } from './visible-text.ts';

/** Bytes of the email's member list at most (the email and `default` share SNS's 256 KB with the others). */
export const EMAIL_MEMBER_BYTES = 90_000;
/** Networks the `sqs` document lists in `networks` and `peaks` at most; `networkCount` says how many in all. */
export const DOCUMENT_MAX_NETWORKS = 100;
/** Networks the chat description names at most (its 3,000 characters). */
const CHAT_MAX_NETWORKS = 15;
const MAX_ID_CHARS = 200;
const MAX_FOLD_INPUT = 1000;

/** A number as people read a rate: 1.2M, 530k, 950; booleans as they are. */
export function compactValue(value: unknown): string {
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'number' || !Number.isFinite(value)) return '?';
  const abs = Math.abs(value);
  for (const [unit, size] of [
    ['G', 1e9],
    ['M', 1e6],
    ['k', 1e3],
  ] as const) {
    if (abs >= size) return `${Number((value / size).toPrecision(abs / size >= 100 ? 3 : 2))}${unit}`;
  }
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}

function storyOf(alert: AlertRecord): IncidentStory | undefined {
  const story = alert.story;
  return typeof story === 'object' && story !== null && Array.isArray(story.members) ? story : undefined;
}

function oneLine(text: unknown, max: number): string {
  if (typeof text !== 'string' || text === '') return '?';
  return shorten(foldVisible(shorten(text, MAX_FOLD_INPUT)), max);
}

/** `traffic.in.pps > 500k`, or undefined when the record has no condition. */
function conditionText(condition: RuleCondition | undefined, max: number): string | undefined {
  if (condition === undefined) return undefined;
  try {
    const threshold =
      condition.threshold.kind === 'number'
        ? compactValue(condition.threshold.value)
        : kindOf(condition.threshold).print(condition.threshold);
    return `${oneLine(condition.path, max)} ${condition.op} ${threshold}`;
  } catch {
    return undefined;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The worst member the alert names (members are worst first). */
function worst(story: IncidentStory | undefined): StoryMember | undefined {
  return story?.members.find((m) => m.peak !== undefined) ?? story?.members[0];
}

/** The head of the subject and SMS: `flood on 37 networks`, `flood: 12 more networks (49 in all)`, ... */
function head(alert: IncidentAlertRecord, story: IncidentStory | undefined, ruleMax: number): string {
  const rule = oneLine(alert.rule, ruleMax);
  const count = story?.count ?? 0;
  switch (alert.event) {
    case 'incident.updated':
      return `${rule}: ${plural(count, 'more network')} (${story?.total ?? count} in all)`;
    case 'incident.reminder':
      return `REMINDER ${rule} still on ${plural(count, 'network')}`;
    case 'incident.acknowledged':
      return `ACK ${rule} on ${plural(count, 'network')} by ${oneLine(alert.acknowledgedBy, 24)}`;
    case 'incident.escalated':
      return `ESCALATED stage ${Number.isSafeInteger(alert.stage) ? alert.stage : '?'} ${rule} on ${plural(count, 'network')}`;
    case 'incident.resolved': {
      const lasted = lastedOf(alert);
      return `RESOLVED ${rule} on ${plural(count, 'network')}${lasted === undefined ? '' : ` after ${lasted}`}`;
    }
    default:
      return `${rule} on ${plural(count, 'network')}`;
  }
}

/** `peak 1.2M on edge-1`, or undefined without a member. */
function peakText(story: IncidentStory | undefined, idMax: number): string | undefined {
  const member = worst(story);
  if (member === undefined) return undefined;
  const value = member.peak ?? member.value;
  return `peak ${compactValue(value)} on ${oneLine(member.network, idMax)}`;
}

/** The subject after the `[name] ` prefix, within `max` characters. */
export function incidentSubject(alert: IncidentAlertRecord, prefix: string, max: number): string {
  const story = storyOf(alert);
  // Shorten the parts that come from configuration (rule, network id, path) until the whole fits.
  for (const [ruleMax, idMax, pathMax] of [
    [40, 40, 60],
    [24, 20, 30],
    [16, 12, 18],
  ] as const) {
    const condition = conditionText(alert.condition, pathMax);
    const peak = peakText(story, idMax);
    const text = `${prefix}${head(alert, story, ruleMax)}${peak === undefined ? '' : `: ${peak}`}${condition === undefined ? '' : ` (${condition})`}`;
    if (text.length <= max) return text;
  }
  return shorten(`${prefix}${head(alert, story, 16)}: ${peakText(story, 12) ?? ''}`, max);
}

/** The SMS: the subject's words, when it was seen, within `max` characters. */
export function incidentSms(alert: IncidentAlertRecord, name: string, when: string, max: number): string {
  const body = incidentSubject(alert, '', max - name.length - when.length - 6);
  return shorten(`${name}: ${body}, ${when}.`, max);
}

/** How long the incident lasted (resolved) or has lasted (others), when both times are known. */
function lastedOf(alert: IncidentAlertRecord): string | undefined {
  const since = momentOf(alert.story?.openedAt ?? alert.openedAt);
  const seen = momentOf(alert.story?.resolvedAt ?? alert.at);
  return since === undefined || seen === undefined ? undefined : formatDuration(seen.ms - since.ms);
}

function exact(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '-';
}

function idText(text: unknown): string {
  return typeof text === 'string' && text !== '' ? escapeHidden(shorten(text, MAX_ID_CHARS), 'space') : '?';
}

/** A time in a member's line: the time of day when on the incident's first day, else the ISO text. */
function timeText(iso: unknown, day: string | undefined): string {
  if (typeof iso !== 'string' || iso === '') return '?';
  return day !== undefined && iso.startsWith(day) && iso.length >= 19 ? `${iso.slice(11, 19)}Z` : idText(iso);
}

/**
 * The peak as a multiple of the rule's threshold (` (3.0x the threshold)`), for a rule that triggers above a
 * number; empty otherwise (a baseline, a boolean, a rule that triggers below).
 */
export function thresholdMultiple(peak: unknown, condition: RuleCondition | undefined): string {
  if (typeof peak !== 'number' || condition === undefined) return '';
  if (condition.op !== '>' && condition.op !== '>=') return '';
  const threshold = condition.threshold.kind === 'number' ? condition.threshold.value : undefined;
  if (typeof threshold !== 'number' || !(threshold > 0)) return '';
  return ` (${(peak / threshold).toFixed(1)}x the threshold)`;
}

/**
 * One member's line of the email, short so that 1,000 of them fit, the attack's story on that network:
 * `edge-1: 1200000 now; first 800000 at 10:00:00Z, peak 1500000 at 10:02:00Z (3.0x the threshold), for 7m`,
 * and on the resolve `edge-1: first 800000 at 10:00:00Z, peak 1500000 at 10:02:00Z (3.0x the threshold),
 * 10:00:00Z to 10:09:00Z (9m)`.
 */
function memberLine(
  member: StoryMember,
  day: string | undefined,
  resolved: boolean,
  condition: RuleCondition | undefined,
  at: string | undefined,
): string {
  const first =
    member.first === undefined ? '' : `first ${exact(member.first)} at ${timeText(member.joinedAt, day)}, `;
  const peak = `peak ${exact(member.peak)} at ${timeText(member.peakAt, day)}${thresholdMultiple(member.peak, condition)}`;
  const joined = momentOf(member.joinedAt);
  const until = momentOf(member.leftAt ?? at);
  // Just joined (an opening, an update): no duration worth saying.
  const lasted =
    joined === undefined || until === undefined || until.ms <= joined.ms
      ? undefined
      : formatDuration(until.ms - joined.ms);
  if (!resolved) {
    return `  ${idText(member.network)}: ${exact(member.value)} now; ${first}${peak}${lasted === undefined ? '' : `, for ${lasted}`}`;
  }
  const span = `${timeText(member.joinedAt, day)} to ${timeText(member.leftAt, day)}`;
  return `  ${idText(member.network)}: ${first}${peak}, ${span}${lasted === undefined ? '' : ` (${lasted})`}`;
}

/** How the attack spread: `first edge-1 at 10:00:00Z, last to join edge-9 at 10:07:00Z`. */
function spreadText(story: IncidentStory, day: string | undefined): string | undefined {
  const spread = story.spread;
  if (typeof spread !== 'object' || spread === null) return undefined;
  const first = `first ${idText(spread.first?.network)} at ${timeText(spread.first?.at, day)}`;
  // Every network joined at the opening: no last to join.
  if (
    spread.last === undefined ||
    spread.last.network === spread.first?.network ||
    spread.last.at === spread.first?.at
  )
    return first;
  return `${first}, last to join ${idText(spread.last.network)} at ${timeText(spread.last.at, day)}`;
}

/** The email lines: the rule, the incident, its times and totals, then every network of the alert. */
export function incidentEmailLines(
  alert: IncidentAlertRecord,
  field: (label: string, value: string) => string,
): string[] {
  const story = storyOf(alert);
  const lines = [
    field('Rule', idText(alert.ruleText ?? alert.rule)),
    field('Incident', idText(alert.incident)),
  ];
  if (typeof alert.acknowledgedBy === 'string') {
    lines.push(field('Acknowledged by', idText(alert.acknowledgedBy)));
    if (typeof alert.detail === 'string') lines.push(field('Note', idText(alert.detail)));
  }
  if (alert.event === 'incident.escalated') lines.push(field('Stage', String(alert.stage ?? '?')));
  const opened = momentOf(story?.openedAt ?? alert.openedAt);
  if (opened !== undefined) lines.push(field('Opened', `${opened.iso} (${opened.human})`));
  if (alert.event === 'incident.resolved') {
    const resolved = momentOf(story?.resolvedAt ?? alert.at);
    if (resolved !== undefined) lines.push(field('Resolved', `${resolved.iso} (${resolved.human})`));
    lines.push(field('Lasted', lastedOf(alert) ?? 'unknown'));
  }
  if (story !== undefined) {
    lines.push(field('Networks in all', `${story.total} (${story.active} still triggered)`));
    const spread = spreadText(
      story,
      typeof story.openedAt === 'string' ? story.openedAt.slice(0, 11) : undefined,
    );
    if (spread !== undefined) lines.push(field('Spread', spread));
    const what =
      alert.event === 'incident.updated'
        ? 'Networks that joined'
        : alert.event === 'incident.opened'
          ? 'Networks'
          : alert.event === 'incident.reminder'
            ? 'Networks still triggered'
            : 'Networks';
    const how =
      alert.event === 'incident.resolved'
        ? 'first value, peak and when, active from and to'
        : 'value now, first value, peak and when, how long';
    lines.push('', `${what} (${story.count}, worst first; ${how}; times UTC):`);
    let used = 0;
    let listed = 0;
    const day = typeof story.openedAt === 'string' ? story.openedAt.slice(0, 11) : undefined;
    for (const member of story.members) {
      const line = memberLine(
        member,
        day,
        alert.event === 'incident.resolved',
        alert.condition,
        typeof alert.at === 'string' ? alert.at : undefined,
      );
      if (used + line.length + 1 > EMAIL_MEMBER_BYTES) break;
      lines.push(line);
      used += Buffer.byteLength(line) + 1;
      listed++;
    }
    const left = story.count - listed;
    // An alert carries the worst few (CONTRACT §13, Any size); the listing has every one.
    if (left > 0)
      lines.push(
        listed < story.members.length
          ? `  ... and ${plural(left, 'more network')} (left out to keep the message within the SNS size limit)`
          : `  ... and ${plural(left, 'more network')} (every one: shieldwatch incidents show ${alert.incident ?? 'ID'})`,
      );
    lines.push('');
  }
  return lines;
}

/** The chat description's lines: the totals, the worst networks with their peaks. */
export function incidentChatLines(
  alert: IncidentAlertRecord,
  field: (label: string, value: string) => string,
): string[] {
  const story = storyOf(alert);
  const lines = [field('Rule', idText(alert.ruleText ?? alert.rule))];
  if (story === undefined) return lines;
  lines.push(
    field('Networks', `${story.count} in this alert, ${story.total} in all, ${story.active} triggered`),
  );
  for (const member of story.members.slice(0, CHAT_MAX_NETWORKS)) {
    lines.push(
      field(idText(member.network), `${compactValue(member.value)} (peak ${compactValue(member.peak)})`),
    );
  }
  if (story.count > CHAT_MAX_NETWORKS) lines.push(`_... and ${story.count - CHAT_MAX_NETWORKS} more_`);
  if (alert.event === 'incident.resolved') lines.push(field('Lasted', lastedOf(alert) ?? 'unknown'));
  return lines;
}

/** A member in the `sqs` document's `peaks`. */
export interface DocumentPeak {
  readonly network: string;
  readonly peak?: number | boolean;
  readonly peakAt?: string;
  readonly value?: number | boolean;
  /** Its reading when it joined, and when it joined and left (the attack's story on it). */
  readonly first?: number | boolean;
  readonly joinedAt?: string;
  readonly leftAt?: string;
}

/** The `sqs` document's incident fields: `networks` (ids), `peaks`, `networkCount`, `networksTotal`. */
export function incidentDocumentFields(alert: AlertRecord): Record<string, unknown> {
  const story = storyOf(alert);
  if (story === undefined) return {};
  const listed = story.members.slice(0, DOCUMENT_MAX_NETWORKS);
  const scalar = (v: unknown) =>
    typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? v : undefined;
  return {
    networks: listed.map((m) => ({ network: shorten(String(m.network), 1024) })),
    peaks: listed.map((m) =>
      Object.fromEntries(
        Object.entries({
          network: shorten(String(m.network), 1024),
          peak: scalar(m.peak),
          peakAt: typeof m.peakAt === 'string' ? shorten(m.peakAt, 64) : undefined,
          value: scalar(m.value),
          first: scalar(m.first),
          joinedAt: typeof m.joinedAt === 'string' ? shorten(m.joinedAt, 64) : undefined,
          leftAt: typeof m.leftAt === 'string' ? shorten(m.leftAt, 64) : undefined,
        }).filter(([, v]) => v !== undefined),
      ),
    ),
    networkCount: story.count,
    networksTotal: story.total,
    ...(typeof story.spread?.first?.network === 'string' && typeof story.spread.last?.network === 'string'
      ? {
          spread: {
            first: {
              network: shorten(story.spread.first.network, 1024),
              at: shorten(String(story.spread.first.at), 64),
            },
            last: {
              network: shorten(story.spread.last.network, 1024),
              at: shorten(String(story.spread.last.at), 64),
            },
          },
        }
      : {}),
    openedAt: shorten(String(story.openedAt), 64),
    ...(story.resolvedAt === undefined ? {} : { resolvedAt: shorten(String(story.resolvedAt), 64) }),
    stage: Number.isSafeInteger(alert.stage) && (alert.stage as number) >= 1 ? alert.stage : 1,
    ...(typeof alert.acknowledgedBy === 'string'
      ? { acknowledgedBy: shorten(alert.acknowledgedBy, 1024) }
      : {}),
  };
}
