/**
 * The acknowledge function's Lambda entry (docs/acknowledge.md, The link), behind its function URL: reads the
 * request, answers it with `respondToAck`. Its own function, bundle and role: it can update the items that hold
 * incidents (under pk `state`) and read its signing key, nothing else, and it never publishes (the next poll
 * cycle sends what it queued).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { respondToAck } from './ack-http.ts';
import { AckKeyReader } from './adapters/ack-keys.ts';
import { createDynamoClient } from './adapters/aws-clients.ts';
import { DynamoStore } from './adapters/dynamo-store.ts';
import { createSecretsClient } from './adapters/secrets-client.ts';
import { REFUSAL } from './core/ack/ack-page.ts';
import type { IncidentScopes } from './incident-acks.ts';
import { SERVICE_NAME } from './metric-names.ts';
import { SETTINGS } from './settings.ts';

const logger = new Logger({ serviceName: `${SERVICE_NAME}-ack` });
let parts: { keys: AckKeyReader; incidents: IncidentScopes } | undefined;

function coldStart(env: NodeJS.ProcessEnv): { keys: AckKeyReader; incidents: IncidentScopes } {
  const table = env[SETTINGS.table.env];
  const secret = env[SETTINGS.ackSecret.env];
  if (table === undefined || table === '' || secret === undefined || secret === '') {
    throw new Error(`the acknowledge function needs ${SETTINGS.table.env} and ${SETTINGS.ackSecret.env}`);
  }
  return {
    keys: new AckKeyReader(createSecretsClient(env), secret),
    // The items the poll cycle writes under pk state: the incident scopes (sk incident#<rule>), the shards'
    // health items (sk health#<shard>), which hold the blind-spot incidents, and the monitor state item (sk
    // monitor), which holds the status's and the API's.
    incidents: new DynamoStore(createDynamoClient(env), table),
  };
}

async function answer(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  parts ??= coldStart(process.env);
  const { keys, incidents } = parts;
  const body =
    event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  const contentType = event.headers?.['content-type'];
  const queryToken = event.queryStringParameters?.['t'];
  const response = await respondToAck(
    {
      method: event.requestContext?.http?.method ?? 'GET',
      ...(queryToken === undefined ? {} : { queryToken }),
      ...(body === undefined ? {} : { body }),
      ...(contentType === undefined ? {} : { contentType }),
    },
    {
      keys: () => keys.keys(),
      incidents,
      now: Date.now,
      log: (message, fields) => logger.info(message, fields),
    },
  ).catch((error: unknown) => {
    // The store or the secret failed: logged (never the token), answered like any other failure.
    logger.error('acknowledge request failed', error as Error);
    return REFUSAL;
  });
  return { statusCode: response.status, headers: { ...response.headers }, body: response.body };
}

/** Lambda entry: one request to the function URL. */
export const handler = middy(answer).use(injectLambdaContext(logger));
