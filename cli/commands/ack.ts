/**
 * `shieldwatch ack ID [--note TEXT]` and `shieldwatch unack ID` (docs/acknowledge.md, Acknowledging; CONTRACT
 * §14): acknowledge an open incident, or withdraw the acknowledgement, in the store named (`--stack NAME`, the
 * AWS settings) or the local store of this directory. The write is the one the acknowledge link makes
 * (`lambda/incident-acks.ts`): the item that holds the incident (a rule's incident item, a shard's health item, the
 * monitor state item) and its `incident.acknowledged` alert in one conditional write;
 * the next poll cycle publishes the alert through the outbox, exactly once.
 */
import { userInfo } from 'node:os';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { ACK_NOTE_MAX_CHARS } from '../../lambda/core/incidents/incident-ack.ts';
import { acknowledge, type IncidentScopes, isAckableId, unacknowledge } from '../../lambda/incident-acks.ts';
import { defineCommand } from '../args.ts';
import { printable, UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { type CliStore, hasAwsConfiguration, openStore, storeCall } from '../store/open.ts';

/** Longest incident id: PagerDuty's `dedup_key` (docs/channels.md). */
const MAX_ID_CHARS = 255;

/** The incident id argument, or a usage error saying what one looks like. */
function incidentIdOf(command: string, id: string): string {
  if (id.length > MAX_ID_CHARS || !isAckableId(id)) {
    throw new UsageError(
      `${JSON.stringify(printable(id.slice(0, 80)))} is no incident id; ids look like flood@2026-05-01T10:04:00.000Z, ` +
        'flood/edge-1/2026-05-01T10:04:00.000Z, network.unreachable/0/2026-05-01T10:04:00.000Z, ' +
        'filter.status_changed/2026-05-01T10:04:00.000Z ' +
        'or api.unreachable/2026-05-01T10:04:00.000Z ' +
        `(the "incident" of an alert, or shieldwatch status) (${command})`,
    );
  }
  return id;
}

/**
 * Whether STS can tell who the credentials are: AWS settings, and either the store is AWS's own DynamoDB (no
 * endpoint of its own) or an STS endpoint is named (an emulator). A DynamoDB on this machine named alone is a
 * local store: asking AWS's STS about its placeholder credentials would go over the Internet for nothing.
 */
function stsCanTell(env: CliIo['env']): boolean {
  if (!hasAwsConfiguration(env)) return false;
  if ((env['AWS_ENDPOINT_URL_STS'] ?? env['AWS_ENDPOINT_URL'] ?? '') !== '') return true;
  return (env['AWS_ENDPOINT_URL_DYNAMODB'] ?? '') === '';
}

/**
 * Who acknowledges: on AWS the IAM principal the credentials belong to (STS `GetCallerIdentity`, imported
 * only here); with the local store, or when STS cannot tell, the user of this machine.
 */
async function whoAmI(io: CliIo): Promise<string> {
  if (stsCanTell(io.env)) {
    try {
      const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
      const region = io.env['AWS_REGION'] ?? io.env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
      const sts = new STSClient({
        region,
        maxAttempts: 1,
        requestHandler: { connectionTimeout: 3000, requestTimeout: 5000, throwOnRequestTimeout: true },
      });
      try {
        const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
        if (Arn !== undefined && Arn !== '') return Arn;
      } finally {
        sts.destroy();
      }
    } catch {
      // An endpoint without STS (a local DynamoDB named through AWS settings): the user of this machine.
    }
  }
  let user = io.env['USER'];
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container): $USER, or nobody in particular.
  }
  return user ?? 'unknown';
}

/** Opens the store that exists (a new one would hold no incident), runs `work` on its incidents, closes it. */
async function withIncidents<T>(
  io: CliIo,
  work: (incidents: IncidentScopes, store: CliStore) => Promise<T>,
): Promise<T> {
  const config = loadStoreConfig(io.env);
  const store = await openStore(io.env, config.table, { existingOnly: true });
  try {
    const incidents = new DynamoStore(store.client, config.table);
    return await storeCall(store, () => work(incidents, store));
  } finally {
    store.client.destroy();
  }
}

/** Why `id` is not open, for the message of exit 1. */
function notOpen(command: string, id: string, resolvedAt: string | undefined): string {
  const why =
    resolvedAt === undefined
      ? 'no open incident has this id (unknown, resolved, or replaced by a newer one)'
      : `it was resolved at ${resolvedAt}`;
  return `shieldwatch ${command}: incident ${printable(id)} is not open: ${why}; shieldwatch status lists the open incidents`;
}

/** `shieldwatch ack ID [--note TEXT]`. */
export const ackCommand = defineCommand({
  name: 'ack',
  description: [
    'Acknowledges the open incident ID: it gets no more reminders and no escalation; its end is still',
    'sent. Who (your IAM principal on AWS, your user name with the local store), when and the note are',
    'written in its timeline, and incident.acknowledged (action acknowledge: PagerDuty acknowledges the',
    'same dedup_key) is published once, by the next poll cycle. Acknowledging it again changes nothing.',
  ].join('\n'),
  options: {
    note: {
      type: 'string',
      value: 'TEXT',
      description: `why, or what is being done (kept with the acknowledgement; at most ${ACK_NOTE_MAX_CHARS} characters)`,
    },
  },
  arguments: ['id'],
  examples: [
    'ack flood@2026-05-01T10:04:00.000Z',
    "ack flood@2026-05-01T10:04:00.000Z --note 'scrubbing at the upstream' --stack Shieldwatch",
    "ack api.unreachable/2026-05-01T10:02:00.000Z --note 'provider status page: outage'",
    'ack flood/edge-1/2026-05-01T10:04:00.000Z',
  ],
  notes: [
    'The id is the "incident" of an alert (the PagerDuty dedup_key, the chat thread), as shieldwatch status',
    "shows it: a rule's incident (flood@..., or with groupBy=none flood/<network>/...), a blind spot's",
    '(network.unreachable/...), the filter status away from the',
    "expected one (filter.status_changed/...) or the API's (api.unreachable/..., api.auth_failed/...,",
    'filter.status_unreadable/...).',
    'Written to the store named (--stack NAME, AWS settings) or to the local store of this directory.',
    'Exit codes: 0 acknowledged (or it was already), 1 no open incident of that id or the store failed, 2 bad usage.',
  ].join('\n'),
  async run(values, io) {
    const id = incidentIdOf('ack', values.id);
    const note = values.note;
    if (note !== undefined && [...note].length > ACK_NOTE_MAX_CHARS) {
      throw new UsageError(`--note is at most ${ACK_NOTE_MAX_CHARS} characters (got ${[...note].length})`);
    }
    const by = await whoAmI(io);
    const at = new Date(io.now()).toISOString();
    let where = '';
    const result = await withIncidents(io, (incidents, store) => {
      where = store.description;
      return acknowledge(incidents, id, { by, at, ...(note === undefined ? {} : { note }) });
    });
    if (result.outcome === 'not-open') {
      println(io.stderr, notOpen('ack', id, result.resolvedAt));
      return 1;
    }
    if (result.outcome === 'already') {
      const ack = result.view.acknowledged;
      println(
        io.stdout,
        // A rule's incident on one network acknowledged before who was kept, or past its item's budget for them,
        // keeps when only (docs/acknowledge.md).
        `incident ${printable(id)} was already acknowledged${ack === undefined ? '' : `${ack.by === '' ? '' : ` by ${printable(ack.by)}`} at ${ack.at}`}; nothing changed`,
      );
    } else {
      println(
        io.stdout,
        `incident ${printable(id)} acknowledged by ${printable(by)} at ${at}: no more reminders or escalations; ` +
          'the next poll cycle publishes incident.acknowledged',
      );
    }
    println(io.stdout, `store: ${where}`);
    return 0;
  },
});

/** `shieldwatch unack ID`. */
export const unackCommand = defineCommand({
  name: 'unack',
  description: [
    'Withdraws the acknowledgement of the open incident ID: reminders and escalation apply again from the',
    'next poll cycle (an escalation whose age has passed is sent then). Nothing is published; the timeline',
    'says who withdrew it.',
  ].join('\n'),
  options: {},
  arguments: ['id'],
  examples: ['unack flood@2026-05-01T10:04:00.000Z'],
  notes: [
    'Written to the store named (--stack NAME, AWS settings) or to the local store of this directory.',
    'Exit codes: 0 withdrawn (or it was not acknowledged), 1 no open incident of that id or the store failed, 2 bad usage.',
  ].join('\n'),
  async run(values, io) {
    const id = incidentIdOf('unack', values.id);
    const by = await whoAmI(io);
    const at = new Date(io.now()).toISOString();
    let where = '';
    const result = await withIncidents(io, (incidents, store) => {
      where = store.description;
      return unacknowledge(incidents, id, by, at);
    });
    if (result.outcome === 'not-open') {
      println(io.stderr, notOpen('unack', id, result.resolvedAt));
      return 1;
    }
    println(
      io.stdout,
      result.outcome === 'not-acknowledged'
        ? `incident ${printable(id)} is not acknowledged; nothing changed`
        : `acknowledgement of incident ${printable(id)} withdrawn by ${printable(by)}: reminders and escalation apply again from the next poll cycle`,
    );
    println(io.stdout, `store: ${where}`);
    return 0;
  },
});
