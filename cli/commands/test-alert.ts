import { hostname } from 'node:os';
import { createSnsClient } from '../../lambda/adapters/sns-client.ts';
import { SnsAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { loadAlertConfig } from '../../lambda/config.ts';
import { renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import { defineCommand } from '../args.ts';
import { type CliIo, println } from '../io.ts';

export const testAlertCommand = defineCommand({
  name: 'test-alert',
  description: [
    'Publishes one test notification to SHIELDWATCH_TOPIC_ARN with the message attribute',
    'event=monitor.test, so you can check that email and SMS subscriptions deliver without waiting',
    'for a status change. It is not recorded as an event.',
    'Needs only SHIELDWATCH_TOPIC_ARN (and AWS settings), not the API settings. Without a topic nothing',
    'can be delivered (alerts only go to the log / terminal): it says so and exits 1.',
  ].join('\n'),
  options: {
    note: {
      type: 'string',
      value: 'TEXT',
      description: 'a line added to the message, at most 200 characters (e.g. who sent it)',
    },
  },
  examples: ['test-alert --note "from the on-call laptop"', 'test-alert --stack Shieldwatch'],
  notes: [
    'Exit codes: 0 published to the topic; 1 nothing was delivered (no topic configured, or SNS refused it);',
    '2 bad configuration.',
  ].join('\n'),
  async run(values, io: CliIo) {
    const config = loadAlertConfig(io.env);
    const note = values.note?.slice(0, 200);
    const alert = renderAlert(
      {
        seq: 0,
        event: 'monitor.test',
        at: new Date(io.now()).toISOString(),
        detail: note ?? `sent by shieldwatch test-alert from ${hostname()}`,
      },
      { networks: [], monitorName: config.monitorName },
    );
    if (config.topicArn === undefined) {
      // Printing the alert itself would show its "delivery works" text although nothing was delivered.
      println(
        io.stderr,
        'shieldwatch test-alert: no topic configured (SHIELDWATCH_TOPIC_ARN is not set): nothing was delivered.\n' +
          'Without a topic, alerts are only logged to the terminal (or the Lambda log). Set SHIELDWATCH_TOPIC_ARN\n' +
          'to the SNS topic the stack created (the stack output TopicArn) and run test-alert again.',
      );
      return 1;
    }
    const sns = createSnsClient(io.env);
    try {
      const messageId = await new SnsAlertPublisher(sns, config.topicArn).publish(alert);
      const stack = io.env['SHIELDWATCH_STACK'];
      println(
        io.stdout,
        `test alert published to ${config.topicArn}${stack === undefined ? '' : ` (stack ${stack})`} (message id ${messageId})`,
      );
      println(io.stdout, `subject: ${alert.subject}`);
      return 0;
    } catch (error) {
      println(
        io.stderr,
        `shieldwatch test-alert: SNS refused the test alert: ${(error as Error).name}: ${(error as Error).message}`,
      );
      return 1;
    } finally {
      sns.destroy();
    }
  },
});
