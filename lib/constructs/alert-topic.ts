import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Subscription, SubscriptionProtocol, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { SubscriptionDeadLetterQueue } from './subscription-dlq.ts';

/** Properties of {@link AlertTopic}. */
export interface AlertTopicProps {
  /**
   * Email addresses to subscribe (each must confirm the subscription).
   * @default []
   */
  readonly emails?: readonly string[];
  /**
   * E.164 phone numbers to subscribe by SMS.
   * @default []
   */
  readonly phoneNumbers?: readonly string[];
}

/**
 * The SNS topic every alert goes to: the poller's status-change alerts and the alarms on the monitor.
 *
 * Encrypted with a customer-managed key, because the AWS-managed `alias/aws/sns` key cannot let CloudWatch
 * use it and alarm notifications to the topic would be dropped without a trace.
 */
export class AlertTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;
  private queueDeliveryAllowed = false;
  /** Where every subscription's undeliverable messages go (see {@link SubscriptionDeadLetterQueue}). */
  readonly deliveryFailures: SubscriptionDeadLetterQueue;

  constructor(scope: Construct, id: string, props: AlertTopicProps = {}) {
    super(scope, id);
    const cloudwatch = new ServicePrincipal('cloudwatch.amazonaws.com');

    this.key = new Key(this, 'Key', {
      description: 'shieldwatch: encrypts the alert topic',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublishToTheEncryptedTopic',
        principals: [cloudwatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        // Only on behalf of this account's alarms (confused deputy), as the topic policy below.
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    );

    this.topic = new Topic(this, 'Topic', { masterKey: this.key, enforceSSL: true });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarmsToPublish',
        principals: [cloudwatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
          },
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        },
      }),
    );

    this.deliveryFailures = new SubscriptionDeadLetterQueue(this, 'DeliveryFailures', { topic: this.topic });
    const deadLetterQueue = this.deliveryFailures.queue;
    for (const email of props.emails ?? []) {
      this.topic.addSubscription(new EmailSubscription(email, { deadLetterQueue }));
    }
    // Not SmsSubscription: it drops its deadLetterQueue. Same scope and id, so the logical ids stay.
    for (const phone of props.phoneNumbers ?? []) {
      new Subscription(this.topic, phone, {
        topic: this.topic,
        protocol: SubscriptionProtocol.SMS,
        endpoint: phone,
        deadLetterQueue,
      });
    }
  }

  /**
   * Lets SNS deliver this topic's messages to SQS queues encrypted with the topic key (the queues that feed
   * PagerDuty and webhooks): `sns.amazonaws.com` may use the key for this account's topics in this region.
   * Not this topic's ARN: the key policy would then depend on the topic that depends on the key. Idempotent.
   */
  allowQueueDelivery(): void {
    if (this.queueDeliveryAllowed) return;
    this.queueDeliveryAllowed = true;
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowTheTopicToDeliverToQueuesUnderThisKey',
        principals: [new ServicePrincipal('sns.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:sns:${Aws.REGION}:${Aws.ACCOUNT_ID}:*` },
        },
      }),
    );
  }
}
