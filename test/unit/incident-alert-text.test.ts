/**
 * The texts of incidents across networks (docs/alerts.md, Incidents): the subject names the rule, the count and
 * the worst network with its peak; every size limit holds with 1,000 networks; the email lists every network;
 * the documents carry `networks` and `peaks`; the attributes are CONTRACT §13's.
 */
import { describe, expect, it } from 'vitest';
import { CHATBOT_DESCRIPTION_MAX_CHARS } from '../../lambda/core/alerts/alert-documents.ts';
import { renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import { compactValue } from '../../lambda/core/alerts/incident-alert-text.ts';
import {
  type IncidentScopeState,
  judgeIncident,
  type ShardMembers,
  STORY_MAX_MEMBERS,
} from '../../lambda/core/incidents/incidents.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

const rule = parseRules('flood: traffic.in.pps > 500k').rules[0]!;
const subject = {
  rule: rule.name,
  ruleText: rule.text,
  condition: { path: rule.path, op: rule.op, threshold: rule.threshold },
};
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
const SNS_MAX_BYTES = 256 * 1024;

/** The alerts of an incident on `ids`: opened with the first half, updated with the rest, resolved. */
function alertsOf(ids: readonly string[], value: (i: number) => number): AlertRecord[] {
  const half = Math.ceil(ids.length / 2);
  let state: IncidentScopeState | undefined;
  let members: ShardMembers | undefined;
  const out: AlertRecord[] = [];
  const step = (minute: number, views: { network: string; open: boolean; value: number }[]) => {
    const judged = judgeIncident(state, {
      subject,
      shard: 0,
      at: at(minute),
      views,
      groupIntervalMs: 300_000,
      ...(members === undefined ? {} : { members }),
    });
    if (!judged.stale) members = judged.members;
    if (judged.stale || !judged.changed) return;
    for (const [i, a] of judged.alerts.entries()) {
      out.push({ ...a, seq: state === undefined ? 1 + i : state.nextSeq + i });
    }
    state = { ...judged.state, nextSeq: judged.state.nextSeq + judged.alerts.length };
  };
  step(
    0,
    ids.slice(0, half).map((network, i) => ({ network, open: true, value: value(i) })),
  );
  step(
    1,
    ids.slice(half).map((network, i) => ({ network, open: true, value: value(half + i) })),
  );
  step(
    5,
    ids.slice(0, 1).map((network) => ({ network, open: true, value: value(0) })),
  );
  step(
    9,
    ids.map((network) => ({ network, open: false, value: 1 })),
  );
  return out;
}

describe('incident alert texts', () => {
  it('the subject of the issue: rule, count, worst network and its peak, the condition', () => {
    const ids = Array.from({ length: 37 }, (_, i) => `edge-${i + 1}`);
    const [opened] = alertsOf(ids, (i) => (i === 0 ? 1_200_000 : 600_000));
    const rendered = renderAlert({ ...opened!, story: { ...opened!.story!, count: 37 } }, { networks: [] });
    expect(rendered.subject).toBe(
      '[shieldwatch] flood on 37 networks: peak 1.2M on edge-1 (traffic.in.pps > 500k)',
    );
    // CONTRACT 13's attributes (14 adds `stage`).
    expect(rendered.attributes).toMatchObject({
      event: 'incident.opened',
      severity: 'high',
      action: 'trigger',
      rule: 'flood',
      incident: `flood@${at(0)}`,
    });
  });

  it('opened, updated, resolved: actions trigger, trigger, resolve; one incident id', () => {
    const alerts = alertsOf(['a', 'b', 'c', 'd'], (i) => 600_000 + i);
    expect(alerts.map((a) => a.event)).toEqual(['incident.opened', 'incident.updated', 'incident.resolved']);
    const docs = alerts.map((a) => JSON.parse(renderAlert(a, { networks: [] }).sqs));
    expect(docs.map((d) => d.action)).toEqual(['trigger', 'trigger', 'resolve']);
    expect(new Set(docs.map((d) => d.incident)).size).toBe(1);
    expect(docs[1].networks.map((n: { network: string }) => n.network)).toEqual(['d', 'c']);
    // The attack's story (CONTRACT §15): how it spread, and per network its first value, its peak against the
    // threshold (500k) and how long it lasted.
    expect(docs[2].spread).toEqual({ first: { network: 'a', at: at(0) }, last: { network: 'd', at: at(1) } });
    const email = renderAlert(alerts[2]!, { networks: [] }).email;
    expect(email).toMatch(/Spread: +first a at 10:00:00Z, last to join d at 10:01:00Z/);
    expect(email).toContain(
      '  d: first 600003 at 10:01:00Z, peak 600003 at 10:01:00Z (1.2x the threshold), 10:01:00Z to 10:09:00Z (8m)',
    );
    expect(docs[2].peaks).toContainEqual(
      expect.objectContaining({
        network: 'a',
        peak: 600_000,
        peakAt: at(0),
        value: 600_000,
        first: 600_000,
        joinedAt: at(0),
      }),
    );
    expect(docs[2].networksTotal).toBe(4);
    const resolved = renderAlert(alerts[2]!, { networks: [] });
    expect(resolved.subject).toBe(
      '[shieldwatch] RESOLVED flood on 4 networks after 9m: peak 600k on d (traffic.in.pps > 500k)',
    );
    expect(resolved.attributes['severity']).toBe('resolved');
  });

  it.each([
    ['short ids', (i: number) => `net-${i}`],
    ['long ids', (i: number) => `customer-network-with-a-long-name-${'x'.repeat(60)}-${i}`],
  ])('1,000 networks (%s): every limit holds, the email lists the worst and counts the rest', (_, id) => {
    const ids = Array.from({ length: 1000 }, (_, i) => id(i));
    const alerts = alertsOf(ids, (i) => 500_001 + i * 1000);
    for (const alert of alerts) {
      const rendered = renderAlert(alert, { networks: [] });
      expect(rendered.subject.length).toBeLessThanOrEqual(99);
      expect(rendered.subject).toMatch(/^[\x20-\x7e]+$/);
      expect(rendered.sms.length).toBeLessThanOrEqual(160);
      const message = JSON.stringify(
        Object.fromEntries(['default', 'email', 'sms', 'https', 'sqs'].map((p) => [p, rendered[p as 'sms']])),
      );
      expect(Buffer.byteLength(message)).toBeLessThan(SNS_MAX_BYTES);
      const chat = JSON.parse(rendered.https);
      expect(chat.content.description.length).toBeLessThanOrEqual(CHATBOT_DESCRIPTION_MAX_CHARS);
      const doc = JSON.parse(rendered.sqs);
      expect(doc.networks.length).toBeLessThanOrEqual(100);
      expect(doc.networkCount).toBe(alert.story!.count);
    }
    const resolved = alerts.at(-1)!;
    const resolvedEmail = renderAlert(resolved, { networks: [] }).email;
    // The worst first, each with its value and peak; the others counted, with where to find them all.
    expect(resolvedEmail).toContain(`  ${id(999)}: `);
    expect(resolved.story!.members).toHaveLength(STORY_MAX_MEMBERS);
    expect(resolvedEmail).toContain(
      `... and ${1000 - STORY_MAX_MEMBERS} more networks (every one: shieldwatch incidents show ${resolved.incident})`,
    );
  });

  it.each([
    [1_234_567, '1.2M'],
    [530_000, '530k'],
    [950, '950'],
    [2.5e9, '2.5G'],
    [123_456_789, '123M'],
    [true, 'true'],
  ])('compactValue(%j) is %s', (value, text) => {
    expect(compactValue(value)).toBe(text);
  });
});
