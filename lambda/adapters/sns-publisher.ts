import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { MESSAGE_PROTOCOLS, type RenderedAlert } from '../core/types.ts';
import type { AlertPublisher } from '../ports.ts';

/**
 * Publishes alerts to an SNS topic with one text per protocol of `MESSAGE_PROTOCOLS` (`MessageStructure:
 * json`). Give it a client that does not retry (`createSnsClient`): a retried `Publish` whose first answer was
 * lost is a second alert.
 */
export class SnsAlertPublisher implements AlertPublisher {
  readonly target: string;

  constructor(
    private readonly client: SNSClient,
    private readonly topicArn: string,
  ) {
    this.target = `sns:${topicArn}`;
  }

  async publish(alert: RenderedAlert, signal?: AbortSignal): Promise<string> {
    const out = await this.client.send(
      new PublishCommand({
        TopicArn: this.topicArn,
        Subject: alert.subject,
        MessageStructure: 'json',
        Message: JSON.stringify(
          Object.fromEntries(MESSAGE_PROTOCOLS.map((protocol) => [protocol, alert[protocol]])),
        ),
        MessageAttributes: Object.fromEntries(
          Object.entries(alert.attributes).map(([name, value]) => [
            name,
            { DataType: 'String', StringValue: value },
          ]),
        ),
      }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    return out.MessageId ?? 'unknown';
  }
}

/** Where alerts go when no topic is configured: a line for people, through the given writer. */
export class LogAlertPublisher implements AlertPublisher {
  readonly target = 'log';
  private counter = 0;

  constructor(private readonly write: (alert: RenderedAlert) => void) {}

  async publish(alert: RenderedAlert): Promise<string> {
    this.write(alert);
    this.counter++;
    return `log-${this.counter}`;
  }
}
