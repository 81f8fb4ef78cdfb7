import { Duration, SecretValue, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { CfnApiDestination, CfnConnection } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { Subscription, SubscriptionFilter, SubscriptionProtocol } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ChannelFilterPolicy, ForwardingChannel } from '../channels/index.ts';
import type { AlertTopic } from './alert-topic.ts';

/** Receives of one alert before it is left in the dead-letter queue: with the visibility time-out, ~20 minutes of retries. */
export const FORWARD_MAX_RECEIVES = 10;
/** How long a received alert stays invisible before the pipe may try it again. */
export const FORWARD_RETRY_AFTER = Duration.minutes(2);

/** Properties of {@link AlertForwarding}. */
export interface AlertForwardingProps {
  /** The topic, its key (which encrypts the queues too) and its subscriptions' dead-letter queue. */
  readonly alerts: AlertTopic;
  /** Where the alerts go and how: endpoint, auth, input template, filter policy (`lib/channels/`). */
  readonly channel: ForwardingChannel;
  /**
   * Name (or complete ARN) of an existing secret, holding what the channel's `secretHolds` says (PagerDuty's
   * routing key, the webhook's https URL). Read by CloudFormation through a dynamic reference at deploy
   * time: the value is never in the template.
   */
  readonly secretName: string;
}

/**
 * Forwards alerts from the topic to one channel's HTTPS endpoint through AWS (docs/channels.md): the
 * topic delivers the raw `sqs` document to an encrypted queue (only the alerts of the channel's filter
 * policy), an EventBridge Pipe reads it and calls an API destination with the channel's input template. A
 * failed call leaves the message in the queue to be tried again every {@link FORWARD_RETRY_AFTER}; after
 * {@link FORWARD_MAX_RECEIVES} receives it moves to a dead-letter queue, whose alarm notifies the topic.
 * Everything that differs between channels is in the {@link ForwardingChannel} descriptor.
 */
export class AlertForwarding extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly subscription: Subscription;
  readonly connection: CfnConnection;
  readonly apiDestination: CfnApiDestination;
  readonly pipe: CfnPipe;
  readonly role: Role;
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: AlertForwardingProps) {
    super(scope, id);
    const { topic, key } = props.alerts;
    const { channel } = props;
    const values = {
      secret: SecretValue.secretsManager(props.secretName).unsafeUnwrap(),
      stackName: Stack.of(this).stackName,
    };
    props.alerts.allowQueueDelivery();

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      visibilityTimeout: FORWARD_RETRY_AFTER,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: FORWARD_MAX_RECEIVES },
    });
    const sendFromTopic = this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowTheAlertTopicToDeliver',
        principals: [new ServicePrincipal('sns.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': topic.topicArn } },
      }),
    );
    this.subscription = new Subscription(this, 'Subscription', {
      topic,
      protocol: SubscriptionProtocol.SQS,
      endpoint: this.queue.queueArn,
      rawMessageDelivery: true,
      deadLetterQueue: props.alerts.deliveryFailures.queue,
      ...(channel.filterPolicy === undefined ? {} : { filterPolicy: filterPolicyOf(channel.filterPolicy) }),
    });
    if (sendFromTopic.policyDependable !== undefined)
      this.subscription.node.addDependency(sendFromTopic.policyDependable);

    // Secret body parameters live on the connection, whose secret values EventBridge keeps in Secrets
    // Manager and never returns from DescribeConnection; in the pipe's input template DescribePipe would.
    const bodyParameters = Object.entries(channel.secretBodyParameters ?? {}).map(([name, value]) => ({
      key: name,
      value: value(values),
      isValueSecret: true,
    }));
    this.connection = new CfnConnection(this, 'Connection', {
      description: `shieldwatch alerts to ${channel.label}`,
      authorizationType: 'API_KEY',
      authParameters: {
        apiKeyAuthParameters: {
          apiKeyName: channel.apiKey.header,
          apiKeyValue: channel.apiKey.value(values),
        },
        ...(bodyParameters.length === 0 ? {} : { invocationHttpParameters: { bodyParameters } }),
      },
    });
    this.apiDestination = new CfnApiDestination(this, 'Destination', {
      description: `shieldwatch alerts to ${channel.label}`,
      connectionArn: this.connection.attrArn,
      httpMethod: 'POST',
      invocationEndpoint: channel.endpoint(values),
      invocationRateLimitPerSecond: 10,
    });

    this.role = new Role(this, 'PipeRole', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'shieldwatch: reads the forwarding queue and calls its API destination',
    });
    this.queue.grantConsumeMessages(this.role);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['events:InvokeApiDestination'],
        resources: [this.apiDestination.attrArn],
      }),
    );
    this.pipe = new CfnPipe(this, 'Pipe', {
      description: `shieldwatch: alert queue to ${channel.label}`,
      roleArn: this.role.roleArn,
      source: this.queue.queueArn,
      sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
      target: this.apiDestination.attrArn,
      targetParameters: {
        inputTemplate: channel.inputTemplate,
        httpParameters: { headerParameters: { 'Content-Type': 'application/json' } },
      },
      desiredState: 'RUNNING',
    });
    this.pipe.node.addDependency(this.role);

    this.alarm = new Alarm(this, 'UndeliveredAlarm', {
      alarmDescription:
        `shieldwatch: alerts could not be delivered to ${channel.label} after ` +
        `${FORWARD_MAX_RECEIVES} tries and wait in its dead-letter queue (docs/channels.md).`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const action = new SnsAction(topic);
    this.alarm.addAlarmAction(action);
    this.alarm.addOkAction(action);
  }
}

/** The SNS filter policy of a channel's subscription: each attribute one of its listed strings. */
function filterPolicyOf(policy: ChannelFilterPolicy): Record<string, SubscriptionFilter> {
  return Object.fromEntries(
    Object.entries(policy).map(([attribute, allowlist]) => [
      attribute,
      SubscriptionFilter.stringFilter({ allowlist: [...allowlist] }),
    ]),
  );
}
