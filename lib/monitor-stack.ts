import { Annotations, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { KEY } from '../lambda/adapters/table-schema.ts';
import { settingsEnvironment } from '../lambda/settings.ts';
import { STATUS_PAGE_OUTPUTS } from '../lambda/status-page/stack-outputs.ts';
import { FORWARDING_CHANNELS } from './channels/index.ts';
import { AckFunction } from './constructs/ack-function.ts';
import { AlertForwarding } from './constructs/alert-forwarding.ts';
import { AlertTopic } from './constructs/alert-topic.ts';
import { ApiKeySecret } from './constructs/api-key-secret.ts';
import { ChatChannels } from './constructs/chat-channels.ts';
import { type DigestPageLink, DigestPublisher } from './constructs/digest-publisher.ts';
import { MonitorAlarms } from './constructs/monitor-alarms.ts';
import { MonitorDashboard } from './constructs/monitor-dashboard.ts';
import { PollSchedule } from './constructs/poll-schedule.ts';
import { PollerFunction } from './constructs/poller-function.ts';
import { SnapshotTable } from './constructs/snapshot-table.ts';
import { StatusPage } from './constructs/status-page.ts';
import { StatusPagePublisher } from './constructs/status-page-publisher.ts';
import { contextWarnings, type MonitorSettings, parseMonitorContext } from './context.ts';
import { planShards } from './shards.ts';

/** The DynamoDB actions of the poller on the whole table: reads of state and history, conditional writes, batched snapshots. */
export const POLLER_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:BatchWriteItem',
] as const;

/**
 * The only partition keys the poller deletes items under: a sent alert that a long SNS outage had moved out
 * of the state item (`DynamoStore.complete`). Snapshots expire by TTL; nothing else is ever deleted.
 */
export const POLLER_DELETABLE_PARTITIONS = [KEY.outbox] as const;

/** One shieldwatch deployment: schedule, poller, table, alert topic, secret, alarms, dashboard. */
export class MonitorStack extends Stack {
  /** The validated context this stack was built from. */
  readonly settings: MonitorSettings;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, {
      description: 'shieldwatch: monitors a network protection service and alerts on filter status changes',
      ...props,
    });
    const settings = parseMonitorContext(this.node.getAllContext());
    this.settings = settings;
    for (const { key, message } of contextWarnings(settings)) {
      Annotations.of(this).addWarningV2(`shieldwatch:${key}`, message);
    }
    // Sharded, the networks travel in each schedule's event; otherwise in the function's environment.
    const sharded = settings.shardSize !== undefined;

    const table = new SnapshotTable(this, 'Snapshots').table;
    const alerts = new AlertTopic(this, 'Alerts', {
      emails: settings.alertEmails,
      phoneNumbers: settings.alertSms,
    });
    const apiKey = new ApiKeySecret(this, 'ApiKey', {
      existingSecret: settings.apiKeySecretName,
      kmsKeyArn: settings.apiKeySecretKmsKeyArn,
    });
    const poller = new PollerFunction(this, 'Poller', {
      apiUrl: settings.apiUrl,
      networks: sharded ? undefined : settings.networks,
      statusPath: settings.statusPath,
      apiKeySecretId: apiKey.secretId,
      tableName: table.tableName,
      topicArn: alerts.topic.topicArn,
      retentionDays: settings.retentionDays,
      minIntervalMinutes: settings.schedule.minIntervalMinutes,
      reservedConcurrency: settings.reservedConcurrency,
      figureFields: settings.figureFields,
      expectedStatus: settings.expectedStatus,
      remindEvery: settings.remindEvery,
      escalateAfter: settings.escalateAfter,
      groupBy: settings.groupBy,
      groupInterval: settings.groupInterval,
      confirmations: settings.confirmations,
      alertAfter: settings.alertAfter,
      concurrency: settings.concurrency,
      requestTimeoutMs: settings.requestTimeoutMs,
      rules: settings.rules,
      maintenance: settings.maintenance,
      pollEvery: settings.pollEvery,
    });

    table.grant(poller.function, ...POLLER_TABLE_ACTIONS);
    poller.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:DeleteItem'],
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [...POLLER_DELETABLE_PARTITIONS] },
        },
      }),
    );
    alerts.topic.grantPublish(poller.function);
    apiKey.grantRead(poller.function);
    Validations.of(poller.role).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason:
        'Publishing to the KMS-encrypted topic needs GenerateDataKey; the wildcard only adds its ' +
        'WithoutPlaintext variant, on the topic key alone (CDK grantPublish).',
    });

    const ack = new AckFunction(this, 'Ack', {
      table,
      capConcurrency: settings.ackConcurrency !== 'off',
      ...(typeof settings.ackConcurrency === 'number'
        ? { reservedConcurrency: settings.ackConcurrency }
        : {}),
    });
    ack.grantKeyRead(poller.function);
    const ackLink = settingsEnvironment({ ackUrl: ack.url.url, ackSecret: ack.signingSecret.secretArn });
    for (const [name, value] of Object.entries(ackLink)) poller.function.addEnvironment(name, value);

    const schedule = new PollSchedule(this, 'Schedule', {
      target: poller.function,
      expression: settings.schedule.expression,
      minIntervalMinutes: settings.schedule.minIntervalMinutes,
      shards: sharded ? planShards(settings.networks, settings.shardSize) : undefined,
    });
    const alarms = new MonitorAlarms(this, 'Alarms', {
      function: poller.function,
      deadLetterQueue: schedule.deadLetterQueue,
      deliveryDeadLetterQueue: alerts.deliveryFailures.queue,
      topic: alerts.topic,
      schedule: settings.schedule,
    });
    const { slack, teams } = settings.channels;
    const forwarding = FORWARDING_CHANNELS.flatMap((channel) => {
      const secretName = settings.channels[channel.contextKey];
      return secretName === undefined
        ? []
        : [new AlertForwarding(this, channel.id, { alerts, channel, secretName })];
    });
    const allAlarms = [...alarms.all(), ...forwarding.map((f) => f.alarm)];
    if (slack !== undefined || teams !== undefined) {
      new ChatChannels(this, 'Chat', {
        topic: alerts.topic,
        slack,
        teams,
        alarmArns: allAlarms.map((alarm) => alarm.alarmArn),
      });
    }
    const dashboard = new MonitorDashboard(this, 'Dashboard', {
      function: poller.function,
      alarms: allAlarms,
      networks: settings.networks,
      figureFields: settings.figureFields,
      minIntervalMinutes: settings.schedule.minIntervalMinutes,
    });

    new CfnOutput(this, 'TableName', {
      value: table.tableName,
      description: 'DynamoDB table of snapshots and events',
    });
    new CfnOutput(this, 'TopicArn', { value: alerts.topic.topicArn, description: 'SNS topic of all alerts' });
    new CfnOutput(this, 'SecretName', {
      value: apiKey.secret.secretName,
      description: apiKey.created
        ? 'Secret for the API key: fill it with shieldwatch set-key'
        : 'Secret holding the API key',
    });
    new CfnOutput(this, 'ApiUrl', {
      value: settings.apiUrl,
      description: 'Protection API the monitor polls (shieldwatch set-key checks the key against it)',
    });
    new CfnOutput(this, 'DashboardUrl', { value: dashboard.url, description: 'CloudWatch dashboard' });
    new CfnOutput(this, 'FunctionName', {
      value: poller.function.functionName,
      description: 'Poller function',
    });
    new CfnOutput(this, 'AckUrl', {
      value: ack.url.url,
      description:
        'Acknowledge link of incident alerts (the signed token in each alert is its authorization)',
    });
    const page = settings.statusPage === undefined ? undefined : this.addStatusPage(settings, table, sharded);
    if (settings.digest !== undefined) {
      const digest = new DigestPublisher(this, 'Digest', {
        schedule: settings.digest,
        table,
        topic: alerts.topic,
        maintenance: settings.maintenance,
        page,
      });
      new CfnOutput(this, 'DigestFunctionName', {
        value: digest.function.functionName,
        description: `Digest function (${settings.digest.every}; its schedule runs it hourly)`,
      });
    }
  }

  /**
   * The hosted status page (docs/status-page.md): bucket, distribution, its publisher and schedule, outputs.
   * Returns how the digest links to it.
   */
  private addStatusPage(settings: MonitorSettings, table: ITable, sharded: boolean): DigestPageLink {
    const { mode, everyMinutes } = settings.statusPage!;
    const page = new StatusPage(this, 'StatusPage', { mode });
    new StatusPagePublisher(this, 'StatusPagePublisher', {
      mode,
      everyMinutes,
      table,
      bucket: page.bucket,
      networks: sharded ? undefined : settings.networks,
      expectedStatus: settings.expectedStatus,
      rules: settings.rules,
      figureFields: settings.figureFields,
      maintenance: settings.maintenance,
      url: page.url,
    });
    new CfnOutput(this, STATUS_PAGE_OUTPUTS.url, {
      value: page.url,
      description:
        mode === 'private'
          ? 'Status page (private: open it with the link of shieldwatch page-link)'
          : 'Status page (public)',
    });
    if (page.signingKey !== undefined) {
      new CfnOutput(this, STATUS_PAGE_OUTPUTS.keyId, {
        value: page.signingKey.publicKey.publicKeyId,
        description: 'CloudFront public key that signs the status page links',
      });
      new CfnOutput(this, STATUS_PAGE_OUTPUTS.keySecret, {
        value: page.signingKey.secret.secretArn,
        description:
          'Secret holding the private key of the status page links (read by shieldwatch page-link)',
      });
    }
    return { url: page.url, mode };
  }
}
