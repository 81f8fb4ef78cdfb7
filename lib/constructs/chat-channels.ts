import { Stack } from 'aws-cdk-lib';
import {
  CfnMicrosoftTeamsChannelConfiguration,
  LoggingLevel,
  SlackChannelConfiguration,
} from 'aws-cdk-lib/aws-chatbot';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { SlackChannel, TeamsChannel } from '../context-channels.ts';

/** Properties of {@link ChatChannels}. */
export interface ChatChannelsProps {
  /** The alert topic: every alert's `https` document reaches the channels from here. */
  readonly topic: ITopic;
  /** @default - no Slack channel */
  readonly slack?: SlackChannel;
  /** @default - no Microsoft Teams channel */
  readonly teams?: TeamsChannel;
  /**
   * ARNs of the alarms that notify the topic: the only thing the channels may read, so that Chatbot can
   * describe an alarm it posts.
   */
  readonly alarmArns: readonly string[];
}

/**
 * AWS Chatbot channel configurations on the alert topic (docs/channels.md): a Slack channel, a Microsoft
 * Teams channel, or both. Their role can describe the monitor's own alarms and nothing else, and the same
 * policy is their guardrail, so no one in the channel can run anything beyond it; errors are logged.
 * The Slack workspace or Teams tenant must have been authorised once in the Chatbot console.
 */
export class ChatChannels extends Construct {
  readonly role: Role;
  /** The role's only permissions, and the channels' guardrail. */
  readonly policy: ManagedPolicy;
  readonly slack?: SlackChannelConfiguration;
  readonly teams?: CfnMicrosoftTeamsChannelConfiguration;

  constructor(scope: Construct, id: string, props: ChatChannelsProps) {
    super(scope, id);
    const name = `${Stack.of(this).stackName}-alerts`;
    this.policy = new ManagedPolicy(this, 'NotificationsOnly', {
      description: 'shieldwatch chat channels: describe the monitor alarms, nothing else',
      statements: [
        new PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: [...props.alarmArns] }),
      ],
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('chatbot.amazonaws.com'),
      description: 'shieldwatch chat channels: posts alert notifications',
      managedPolicies: [this.policy],
    });

    if (props.slack !== undefined) {
      this.slack = new SlackChannelConfiguration(this, 'Slack', {
        slackChannelConfigurationName: `${name}-slack`,
        slackWorkspaceId: props.slack.workspaceId,
        slackChannelId: props.slack.channelId,
        notificationTopics: [props.topic],
        role: this.role,
        guardrailPolicies: [this.policy],
        loggingLevel: LoggingLevel.ERROR,
        userRoleRequired: false,
      });
    }
    if (props.teams !== undefined) {
      this.teams = new CfnMicrosoftTeamsChannelConfiguration(this, 'Teams', {
        configurationName: `${name}-teams`,
        teamsTenantId: props.teams.tenantId,
        teamId: props.teams.teamId,
        teamsChannelId: props.teams.channelId,
        snsTopicArns: [props.topic.topicArn],
        iamRoleArn: this.role.roleArn,
        guardrailPolicies: [this.policy.managedPolicyArn],
        loggingLevel: 'ERROR',
        userRoleRequired: false,
      });
    }
  }
}
