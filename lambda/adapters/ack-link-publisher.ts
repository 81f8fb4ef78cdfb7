/**
 * A publisher stage that puts the acknowledge link into the alerts that open or remind of an incident
 * (docs/acknowledge.md, The link), the monitor's own included (`filter.status_changed` away, its reminder, the
 * API's incidents), when deployed (the `ackUrl` and `ackSecret` settings): it signs
 * a token for the alert's incident with the current key (read from Secrets Manager by {@link AckKeyReader},
 * cached) and hands `withAckLink`'s texts to the publisher it wraps. The texts stay pure; the key stays here
 * (never logged, stored or put in the environment: only the secret's ARN is). A key that cannot be read does
 * not hold the alert back: it is sent without a link, and the failure is logged.
 */
import { ackLinkIncident, ackLinkUrl, withAckLink } from '../core/ack/ack-link.ts';
import { ACK_TOKEN_TTL_MS, type AckKey, signAckToken } from '../core/ack/ack-token.ts';
import { monitorAckLinkIncident } from '../core/incidents/monitor-incidents.ts';
import type { AlertPublisher, CycleLog } from '../ports.ts';

/** What the stage needs. */
export interface AckLinkOptions {
  /** The acknowledge function's URL (output `AckUrl`). */
  readonly url: string;
  /** The key that signs new links (`AckKeyReader.signing`). */
  readonly signingKey: () => Promise<AckKey>;
  readonly now: () => number;
  readonly log: Pick<CycleLog, 'warn'>;
  /** How long a link lives. @default ACK_TOKEN_TTL_MS (7 days; a reminder brings a fresh one) */
  readonly ttlMs?: number;
}

/** `publisher` with the acknowledge link put into the alerts that open or remind of an incident. */
export function ackLinkPublisher(publisher: AlertPublisher, options: AckLinkOptions): AlertPublisher {
  return {
    target: publisher.target,
    publish: async (alert, signal) => {
      // A rule's or a blind spot's incident, or one of the monitor's own (the status away, the API's).
      const incident = ackLinkIncident(alert) ?? monitorAckLinkIncident(alert);
      if (incident === undefined) return publisher.publish(alert, signal);
      let linked = alert;
      try {
        const token = signAckToken(
          incident,
          await options.signingKey(),
          options.now(),
          options.ttlMs ?? ACK_TOKEN_TTL_MS,
        );
        linked = withAckLink(alert, ackLinkUrl(options.url, token));
      } catch (error) {
        // The message names the secret's stage and the failure, never a key.
        options.log.warn('acknowledge link left out of the alert: the signing key cannot be read', {
          event: alert.attributes['event'],
          incident,
          error: (error as Error).message,
        });
      }
      return publisher.publish(linked, signal);
    },
  };
}
