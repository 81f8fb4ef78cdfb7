import { SNSClient } from '@aws-sdk/client-sns';
import { AWS_HTTP_OPTIONS, clientDefaults, type Env } from './aws-clients.ts';

/**
 * The SNS client, with time-outs so a hanging publish cannot outlive the cycle's claim on the alert, and no
 * retries: a `Publish` whose answer was lost (5xx, reset, time-out) may have been accepted, and the SDK's own
 * retry would send the alert again within the cycle. A failed publish stays in the outbox for the next cycle.
 */
export function createSnsClient(env: Env): SNSClient {
  return new SNSClient({
    ...clientDefaults(env, 'sns'),
    maxAttempts: SNS_MAX_ATTEMPTS,
    requestHandler: AWS_HTTP_OPTIONS,
  });
}

/** Attempts per SNS call: one (see {@link createSnsClient}). */
export const SNS_MAX_ATTEMPTS = 1;
