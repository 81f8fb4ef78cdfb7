import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSubscription, type ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Properties of {@link SubscriptionDeadLetterQueue}. */
export interface SubscriptionDeadLetterQueueProps {
  /** The topic whose subscriptions redrive to this queue; the only source SNS may send from. */
  readonly topic: ITopic;
}

/**
 * The redrive dead-letter queue of every subscription to the alert topic: a message SNS could not deliver
 * (an email or SMS endpoint refusing it, the SMS spend limit reached, a throttled channel) lands here
 * instead of being dropped after SNS's retries. Encrypted with SQS-managed keys (SNS cannot use the
 * AWS-managed `alias/aws/sqs` key), TLS only, kept 14 days; SNS may send to it from this topic alone.
 *
 * A subscription to the topic without a redrive policy fails synth, so that one added later cannot lose
 * deliveries silently: give it `deadLetterQueue: dlq.queue`.
 */
export class SubscriptionDeadLetterQueue extends Construct {
  readonly queue: Queue;

  constructor(scope: Construct, id: string, props: SubscriptionDeadLetterQueueProps) {
    super(scope, id);
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowTheAlertTopicToRedriveUndeliverableMessages',
        principals: [new ServicePrincipal('sns.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': props.topic.topicArn } },
      }),
    );
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue of the alert subscriptions; a queue behind it would add nothing.',
    });

    const stack = Stack.of(this);
    stack.node.addValidation({
      validate: () =>
        stack.node
          .findAll()
          .filter((c): c is CfnSubscription => c instanceof CfnSubscription)
          .filter((s) => sameValue(stack, s.topicArn, props.topic.topicArn) && s.redrivePolicy === undefined)
          .map(
            (s) =>
              `${s.node.path}: a subscription to the alert topic without a redrive policy would lose ` +
              `undeliverable messages; give it deadLetterQueue (the queue at ${this.node.path})`,
          ),
    });
  }
}

function sameValue(stack: Stack, a: string, b: string): boolean {
  return (
    a === b ||
    (Token.isUnresolved(a) && JSON.stringify(stack.resolve(a)) === JSON.stringify(stack.resolve(b)))
  );
}
