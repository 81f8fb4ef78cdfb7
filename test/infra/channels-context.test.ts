/**
 * The context keys of the alert channels (issue 12, docs/channels.md): Slack and Teams ids in the formats
 * AWS Chatbot accepts, all of a pair or triple or none, secret names; every bad value fails synth naming its key.
 */
import { describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, parseMonitorContext } from '../../lib/context.ts';
import { CHANNEL_CONTEXT_KEYS } from '../../lib/context-channels.ts';
import { buildMonitor, contextProblems } from './synth.ts';

const base = { apiUrl: 'https://api.example.com' };
const SLACK = { slackWorkspaceId: 'T07EA123LEP', slackChannelId: 'C07EZ1ABC23' };
const TEAMS = {
  teamsTenantId: '12345678-1234-1234-1234-123456789012',
  teamsTeamId: '87654321-4321-4321-4321-210987654321',
  teamsChannelId: '19%3ab6ef35dc342d4b9e9fc5ee1c56e1ad1f%40thread.tacv2',
};

const problemsOf = (values: Record<string, unknown>) => contextProblems({ ...base, ...values });

describe('the alert channel context keys', () => {
  it('are context keys of the stack (so a near miss is caught)', () => {
    expect(CONTEXT_KEYS).toEqual(expect.arrayContaining([...CHANNEL_CONTEXT_KEYS]));
    expect(problemsOf({ slackChanelId: 'C1' })).toEqual([
      'slackChanelId: unknown context key; did you mean slackChannelId?',
    ]);
  });

  it('unset: no channels', () => {
    expect(parseMonitorContext(base).channels).toEqual({});
  });

  it('takes every channel at once', () => {
    // Act
    const { channels } = parseMonitorContext({
      ...base,
      ...SLACK,
      ...TEAMS,
      pagerDutyRoutingKeySecret: 'shieldwatch/pagerduty',
      webhookUrlSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shieldwatch/hook-AbC123',
    });

    // Assess
    expect(channels).toEqual({
      slack: { workspaceId: 'T07EA123LEP', channelId: 'C07EZ1ABC23' },
      teams: { tenantId: TEAMS.teamsTenantId, teamId: TEAMS.teamsTeamId, channelId: TEAMS.teamsChannelId },
      pagerDutyRoutingKeySecret: 'shieldwatch/pagerduty',
      webhookUrlSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shieldwatch/hook-AbC123',
    });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      'a Slack workspace without its channel',
      { slackWorkspaceId: SLACK.slackWorkspaceId },
      ['slackChannelId'],
    ],
    ['a Slack channel without its workspace', { slackChannelId: SLACK.slackChannelId }, ['slackWorkspaceId']],
    ['a Teams tenant alone', { teamsTenantId: TEAMS.teamsTenantId }, ['teamsTeamId', 'teamsChannelId']],
    [
      'a Teams team and channel without the tenant',
      { teamsTeamId: TEAMS.teamsTeamId, teamsChannelId: TEAMS.teamsChannelId },
      ['teamsTenantId'],
    ],
  ])('%s fails naming each missing key', (_name, values, missing) => {
    // Act
    const problems = problemsOf(values);

    // Assess
    expect(problems.map((p) => p.slice(0, p.indexOf(':')))).toEqual(missing);
    for (const problem of problems) expect(problem).toMatch(/: required with \w+/);
  });

  it.each<[string, unknown]>([
    ['slackWorkspaceId', 't07ea123lep'],
    ['slackWorkspaceId', 'T07 EA'],
    ['slackChannelId', '#alerts'],
    ['teamsTenantId', 'not-a-uuid'],
    ['teamsTeamId', '12345678123412341234123456789012'],
    ['teamsChannelId', '19:b6ef35dc342d@thread.tacv2'],
    ['pagerDutyRoutingKeySecret', 'my secret'],
    ['pagerDutyRoutingKeySecret', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pd'],
    ['webhookUrlSecret', 'https://hooks.example.com/abc'],
    ['webhookUrlSecret', 42],
    ['webhookUrlSecret', 'x'.repeat(513)],
  ])('%s %j fails synth naming the key', (key, value) => {
    // Prepare: a valid rest of the group, so that only the bad value is reported
    const group = key.startsWith('slack') ? SLACK : key.startsWith('teams') ? TEAMS : {};

    // Act
    const problems = problemsOf({ ...group, [key]: value });

    // Assess
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${key}: (expected|contains) `));
  });

  it('a bad value fails cdk synth itself, naming the key', () => {
    expect(() => buildMonitor({ teamsTenantId: TEAMS.teamsTenantId })).toThrow(
      /teamsTeamId: required with teamsTenantId/,
    );
    expect(() => buildMonitor({ webhookUrlSecret: 'https://hooks.example.com/x' })).toThrow(
      /webhookUrlSecret: expected a Secrets Manager secret name/,
    );
  });
});
