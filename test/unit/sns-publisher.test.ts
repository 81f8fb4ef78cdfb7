/**
 * The SNS publisher's message (docs/alerts.md): one text per protocol of `MESSAGE_PROTOCOLS`, as the real SDK
 * sends it to an SNS endpoint (a loopback HTTP server that records the Publish request and answers as SNS).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnsAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { renderAlert } from '../../lambda/core/alerts/alert-text.ts';
import { MESSAGE_PROTOCOLS, type RenderedAlert } from '../../lambda/core/types.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:shieldwatch-alerts';

describe('SnsAlertPublisher', () => {
  let server: Server;
  let client: SNSClient;
  const requests: URLSearchParams[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        requests.push(new URLSearchParams(body));
        response.writeHead(200, { 'content-type': 'text/xml' });
        response.end(
          '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult>' +
            `<MessageId>m-${requests.length}</MessageId></PublishResult></PublishResponse>`,
        );
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    client = new SNSClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });

  afterAll(async () => {
    client?.destroy();
    server?.close();
  });

  it('sends one text per protocol of MESSAGE_PROTOCOLS, each the rendered one, with subject and attributes', async () => {
    // Prepare
    const rendered: RenderedAlert = renderAlert(
      {
        seq: 1,
        event: 'filter.status_changed',
        at: '2026-11-22T10:04:05.000Z',
        from: 'active',
        to: 'bypass',
      },
      { networks: [] },
    );
    const publisher = new SnsAlertPublisher(client, TOPIC);

    // Act
    const id = await publisher.publish(rendered);

    // Assess
    expect(id).toBe('m-1');
    const request = requests.at(-1)!;
    expect(request.get('Action')).toBe('Publish');
    expect(request.get('TopicArn')).toBe(TOPIC);
    expect(request.get('MessageStructure')).toBe('json');
    expect(request.get('Subject')).toBe(rendered.subject);
    const message = JSON.parse(request.get('Message')!) as Record<string, string>;
    expect(Object.keys(message)).toEqual([...MESSAGE_PROTOCOLS]);
    expect(Object.keys(message)).toEqual(['default', 'email', 'sms', 'https', 'sqs']);
    for (const protocol of MESSAGE_PROTOCOLS) expect(message[protocol]).toBe(rendered[protocol]);
    expect(new Set(MESSAGE_PROTOCOLS.map((protocol) => message[protocol])).size).toBe(4); // default = email
    expect(request.get('MessageAttributes.entry.1.Name')).toBe('event');
    expect(request.get('MessageAttributes.entry.1.Value.StringValue')).toBe('filter.status_changed');
  });

  it('renders every protocol of the list, each a non-empty text', () => {
    // Act
    const rendered = renderAlert(
      { seq: 1, event: 'monitor.test', at: '2026-11-22T10:04:05.000Z' },
      {
        networks: [],
      },
    );

    // Assess
    for (const protocol of MESSAGE_PROTOCOLS) {
      expect(typeof rendered[protocol]).toBe('string');
      expect(rendered[protocol].length).toBeGreaterThan(0);
    }
  });
});
