import { hostname } from 'node:os';
import { createSnsClient } from '../../lambda/adapters/aws-clients.ts';
import { SnsAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { loadAlertConfig } from '../../lambda/config.ts';
import { renderAlert } from '../../lambda/core/alert-text.ts';
import { type CliIo, type Command, println } from '../io.ts';
import { printAlert } from './poll.ts';

export const testAlertCommand: Command = {
  name: 'test-alert',
  summary: 'publish a clearly labelled test notification (event monitor.test) to check email/SMS delivery',
  help: [
    'Usage: shieldwatch test-alert [--note TEXT]',
    '',
    'Publishes one test notification to SHIELDWATCH_TOPIC_ARN with the message attribute',
    'event=monitor.test, so you can check that email and SMS subscriptions deliver without waiting',
    'for a status change. It is not recorded as an event. Without a topic it prints the alert here.',
    'Needs only SHIELDWATCH_TOPIC_ARN (and AWS settings), not the API settings.',
    '',
    'Options:',
    '  --note TEXT   a line added to the message (e.g. who sent it)',
    '  -h, --help    show this help',
    '',
    'Exit codes: 0 published (or printed); 1 SNS refused it; 2 bad configuration.',
  ].join('\n'),
  options: { note: { type: 'string' } },
  async run(values, io: CliIo) {
    const config = loadAlertConfig(io.env);
    const note = typeof values['note'] === 'string' ? values['note'].slice(0, 200) : undefined;
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
      printAlert(io, alert);
      println(io.stdout, 'SHIELDWATCH_TOPIC_ARN is not set: the test alert was printed, not published.');
      return 0;
    }
    const sns = createSnsClient(io.env);
    try {
      const messageId = await new SnsAlertPublisher(sns, config.topicArn).publish(alert);
      println(io.stdout, `test alert published to ${config.topicArn} (message id ${messageId})`);
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
};
