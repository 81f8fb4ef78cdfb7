import { Duration, SecretValue, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { CfnApiDestination, CfnConnection } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { Subscription, SubscriptionFilter, SubscriptionProtocol } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { AlertTopic } from './alert-topic.ts';

/** PagerDuty's Events API v2. */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

/** Receives of one alert before it is left in the dead-letter queue: with the visibility time-out, ~20 minutes of retries. */
export const FORWARD_MAX_RECEIVES = 10;
/** How long a received alert stays invisible before the pipe may try it again. */
export const FORWARD_RETRY_AFTER = Duration.minutes(2);

/** The connection's body parameter that carries PagerDuty's routing key (Events API v2 wants it in the body). */
export const PAGERDUTY_ROUTING_KEY_PARAMETER = 'routing_key';

/**
 * The PagerDuty Events API v2 request made of an `sqs` document (README, Alert channels): `event_action` from
 * `action`, `dedup_key` from `incident` (so a duplicate collapses and the end resolves the page),
 * `payload.summary` the subject, `severity` the level, `source` the monitor. `<$.body.x>` is EventBridge Pipes'
 * substitution from the SQS message body. The routing key is not here: the pipe's configuration is returned in
 * clear by `pipes:DescribePipe`, so the key rides on the connection as a secret body parameter
 * ({@link PAGERDUTY_ROUTING_KEY_PARAMETER}), which EventBridge adds to this JSON object when it calls PagerDuty.
 */
export const PAGERDUTY_INPUT_TEMPLATE = [
  '{',
  '"event_action": "<$.body.action>",',
  '"dedup_key": "<$.body.incident>",',
  '"payload": {',
  '"summary": "<$.body.summary>",',
  '"severity": "<$.body.level>",',
  '"source": "<$.body.monitor>",',
  '"timestamp": "<$.body.at>",',
  '"component": "<$.body.event>",',
  '"custom_details": <$.body>',
  '}',
  '}',
].join('\n');

/** The webhook request: the `sqs` document itself. */
export const WEBHOOK_INPUT_TEMPLATE = '<$.body>';

/** Where alerts go: PagerDuty (incidents only) or a webhook (every message of the topic). */
export type ForwardingDestination = 'pagerduty' | 'webhook';

/** Properties of {@link AlertForwarding}. */
export interface AlertForwardingProps {
  /** The topic, its key (which encrypts the queues too) and its subscriptions' dead-letter queue. */
  readonly alerts: AlertTopic;
  readonly destination: ForwardingDestination;
  /**
   * Name (or complete ARN) of an existing secret: PagerDuty's routing key, or the webhook's https URL. Read by
   * CloudFormation through a dynamic reference at deploy time: the value is never in the template.
   */
  readonly secretName: string;
}

/**
 * Forwards alerts from the topic to an HTTPS endpoint through AWS (README, Alert channels): the topic delivers
 * the raw `sqs` document to an encrypted queue, an EventBridge Pipe reads it and calls an API destination
 * (PagerDuty's Events API v2 with its input template, or the webhook with the document as it is). A failed call
 * leaves the message in the queue to be tried again every {@link FORWARD_RETRY_AFTER}; after
 * {@link FORWARD_MAX_RECEIVES} receives it moves to a dead-letter queue, whose alarm notifies the topic.
 * PagerDuty's subscription takes only alerts with an `action` (incidents that open or close).
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
    const pagerDuty = props.destination === 'pagerduty';
    const secret = SecretValue.secretsManager(props.secretName).unsafeUnwrap();
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
      ...(pagerDuty
        ? { filterPolicy: { action: SubscriptionFilter.stringFilter({ allowlist: ['trigger', 'resolve'] }) } }
        : {}),
    });
    if (sendFromTopic.policyDependable !== undefined)
      this.subscription.node.addDependency(sendFromTopic.policyDependable);

    // A connection needs an authorization. PagerDuty gets its routing key again as a header it ignores; the
    // webhook a header naming the sender (its URL is its credential). PagerDuty's routing key goes into the
    // request body from the connection, whose secret parameters EventBridge keeps in Secrets Manager and never
    // returns from DescribeConnection; in the pipe's input template it would be returned by DescribePipe.
    this.connection = new CfnConnection(this, 'Connection', {
      description: `shieldwatch alerts to ${pagerDuty ? 'PagerDuty' : 'the webhook'}`,
      authorizationType: 'API_KEY',
      authParameters: pagerDuty
        ? {
            apiKeyAuthParameters: { apiKeyName: 'X-Routing-Key', apiKeyValue: secret },
            invocationHttpParameters: {
              bodyParameters: [{ key: PAGERDUTY_ROUTING_KEY_PARAMETER, value: secret, isValueSecret: true }],
            },
          }
        : {
            apiKeyAuthParameters: {
              apiKeyName: 'X-Shieldwatch-Monitor',
              apiKeyValue: Stack.of(this).stackName,
            },
          },
    });
    this.apiDestination = new CfnApiDestination(this, 'Destination', {
      description: `shieldwatch alerts to ${pagerDuty ? 'PagerDuty' : 'the webhook'}`,
      connectionArn: this.connection.attrArn,
      httpMethod: 'POST',
      invocationEndpoint: pagerDuty ? PAGERDUTY_EVENTS_URL : secret,
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
      description: `shieldwatch: alert queue to ${pagerDuty ? 'PagerDuty' : 'the webhook'}`,
      roleArn: this.role.roleArn,
      source: this.queue.queueArn,
      sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
      target: this.apiDestination.attrArn,
      targetParameters: {
        inputTemplate: pagerDuty ? PAGERDUTY_INPUT_TEMPLATE : WEBHOOK_INPUT_TEMPLATE,
        httpParameters: { headerParameters: { 'Content-Type': 'application/json' } },
      },
      desiredState: 'RUNNING',
    });
    this.pipe.node.addDependency(this.role);

    this.alarm = new Alarm(this, 'UndeliveredAlarm', {
      alarmDescription:
        `shieldwatch: alerts could not be delivered to ${pagerDuty ? 'PagerDuty' : 'the webhook'} after ` +
        `${FORWARD_MAX_RECEIVES} tries and wait in its dead-letter queue (README, Alert channels).`,
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
