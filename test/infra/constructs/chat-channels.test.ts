import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { channelsContext, onlyResourceId, synthMonitor } from '../synth.ts';

describe('ChatChannels', () => {
  let template: Template;
  let topic: string;
  let policy: string;
  let role: string;

  beforeAll(() => {
    template = synthMonitor(channelsContext);
    topic = onlyResourceId(template, 'AWS::SNS::Topic');
    policy = onlyResourceId(template, 'AWS::IAM::ManagedPolicy');
    role = Object.keys(
      template.findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'chatbot.amazonaws.com' } }] },
        },
      }),
    )[0]!;
  });

  it('posts the topic to the Slack channel, errors logged, the policy as guardrail', () => {
    template.resourceCountIs('AWS::Chatbot::SlackChannelConfiguration', 1);
    template.hasResourceProperties('AWS::Chatbot::SlackChannelConfiguration', {
      ConfigurationName: 'Shieldwatch-alerts-slack',
      SlackWorkspaceId: 'T07EA123LEP',
      SlackChannelId: 'C07EZ1ABC23',
      SnsTopicArns: [{ Ref: topic }],
      IamRoleArn: { 'Fn::GetAtt': [role, 'Arn'] },
      GuardrailPolicies: [{ Ref: policy }],
      LoggingLevel: 'ERROR',
      UserRoleRequired: false,
    });
  });

  it('posts the topic to the Teams channel the same way', () => {
    template.resourceCountIs('AWS::Chatbot::MicrosoftTeamsChannelConfiguration', 1);
    template.hasResourceProperties('AWS::Chatbot::MicrosoftTeamsChannelConfiguration', {
      ConfigurationName: 'Shieldwatch-alerts-teams',
      TeamsTenantId: channelsContext.teamsTenantId,
      TeamId: channelsContext.teamsTeamId,
      TeamsChannelId: channelsContext.teamsChannelId,
      SnsTopicArns: [{ Ref: topic }],
      IamRoleArn: { 'Fn::GetAtt': [role, 'Arn'] },
      GuardrailPolicies: [{ Ref: policy }],
      LoggingLevel: 'ERROR',
      UserRoleRequired: false,
    });
  });

  it("gives the channels' role one permission: to describe the monitor's own alarms, by ARN", () => {
    // Prepare
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    const managed = template.findResources('AWS::IAM::ManagedPolicy')[policy]!;
    const statements = managed['Properties'].PolicyDocument.Statement as Array<{
      Action: string;
      Resource: Array<{ 'Fn::GetAtt': [string, string] }>;
    }>;

    // Assess
    expect(statements).toHaveLength(1);
    expect(statements[0]!.Action).toBe('cloudwatch:DescribeAlarms');
    expect(statements[0]!.Resource.map((r) => r['Fn::GetAtt'][0]).sort()).toEqual([...alarms].sort());
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'chatbot.amazonaws.com' } }] },
      ManagedPolicyArns: [{ Ref: policy }],
    });
    // No inline policy, and no AWS managed policy such as ReadOnlyAccess.
    expect(
      Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p['Properties'].Roles).includes(role),
      ),
    ).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/arn:aws:iam::aws:policy|ReadOnlyAccess/);
  });

  it.each([
    ['Slack only', { slackWorkspaceId: 'T1', slackChannelId: 'C1' }, 1, 0],
    ['Teams only', { ...channelsContext, slackWorkspaceId: undefined, slackChannelId: undefined }, 0, 1],
    ['no chat', {}, 0, 0],
  ])('%s: only the configured channels', (_name, context, slack, teams) => {
    // Act
    const t = synthMonitor(context);

    // Assess
    t.resourceCountIs('AWS::Chatbot::SlackChannelConfiguration', slack);
    t.resourceCountIs('AWS::Chatbot::MicrosoftTeamsChannelConfiguration', teams);
    t.resourceCountIs('AWS::IAM::ManagedPolicy', slack + teams > 0 ? 1 : 0);
    if (slack + teams === 0) {
      t.resourcePropertiesCountIs(
        'AWS::IAM::Role',
        {
          AssumeRolePolicyDocument: {
            Statement: [Match.objectLike({ Principal: { Service: 'chatbot.amazonaws.com' } })],
          },
        },
        0,
      );
    }
  });
});
