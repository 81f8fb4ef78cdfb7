import { fileURLToPath } from 'node:url';
import { Duration, TimeZone, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { type Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { KEY } from '../../lambda/adapters/table-schema.ts';
import type { DigestSchedule } from '../../lambda/core/digest/digest-schedule.ts';
import { DIGEST_ENV } from '../../lambda/digest/digest-env.ts';
import { settingsEnvironment } from '../../lambda/settings.ts';
import type { StatusPageMode } from '../context-status-page.ts';
import { digestAtText } from '../context-values.ts';
import {
  bundledFunction,
  functionLogsAndRole,
  powertoolsEnvironment,
  scheduledInvoke,
} from './function-defaults.ts';
import { PUBLISHER_LEADING_KEYS } from './status-page-publisher.ts';

/** The digest function's Lambda entry: its own bundle, nothing of it in the poller's. */
export const DIGEST_ENTRY = fileURLToPath(new URL('../../lambda/digest-handler.ts', import.meta.url));

/** Memory of the digest function: it reads a day or a week of history, as the status page publisher does. */
export const DIGEST_MEMORY_MB = 512;

/** Longest run of the digest function; the next run is an hour later. */
export const DIGEST_TIMEOUT = Duration.minutes(2);

/**
 * The partition keys the digest function may Query (IAM `dynamodb:LeadingKeys`): what the status page publisher
 * reads (snapshots, events, state items, the incidents' members, silences), and `outbox`, where its own spilled
 * alerts live (sk `digest/<seq>`).
 */
export const DIGEST_QUERY_LEADING_KEYS = [...PUBLISHER_LEADING_KEYS, KEY.outbox] as const;

/**
 * The partition keys of the items the digest function reads and writes one by one: its state item (pk `state`,
 * sk `digest`), its events (pk `event`) and its spilled alerts (pk `outbox`) on the one exactly-once protocol.
 */
export const DIGEST_ITEM_LEADING_KEYS = [KEY.state, KEY.event, KEY.outbox] as const;

/** The single-item and batch writes of the exactly-once protocol (`lambda/adapters/scope-store.ts`). */
export const DIGEST_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

/** How a run reaches the hosted status page, when the stack has one. */
export interface DigestPageLink {
  /** `https://<distribution domain>/`. */
  readonly url: string;
  readonly mode: StatusPageMode;
}

/** Properties of {@link DigestPublisher}. */
export interface DigestPublisherProps {
  /** When the digest is due (context `digest`, `digestAt`, `digestTz`, as checked at synth). */
  readonly schedule: DigestSchedule;
  readonly table: ITable;
  /** The alert topic the digest is published to (`monitor.digest`). */
  readonly topic: ITopic;
  /**
   * The name alerts carry (catalogue `monitorName`).
   * @default - unset: the function's default
   */
  readonly monitorName?: string;
  /**
   * The maintenance windows declared in context (`maintenance`, as checked at synth), which the digest lists.
   * @default - none
   */
  readonly maintenance?: string;
  /**
   * The hosted status page the email links to.
   * @default - none: the digest has no link
   */
  readonly page?: DigestPageLink;
}

/**
 * The digest function (CONTRACT §19, docs/digest.md) on a schedule of its own: every hour at the minute of
 * `digestAt`, in `digestTz`, so that the run at `digestAt` sends the period's digest on time and a missed or
 * failed one is made good within the hour. A run sends at most one digest per period (its state item and outbox
 * on the exactly-once protocol), so Scheduler's and Lambda's retries are harmless. It shares nothing with the
 * poller but the table and the topic.
 */
export class DigestPublisher extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly schedule: Schedule;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: DigestPublisherProps) {
    super(scope, id);
    const { every, tz } = props.schedule;
    const at = digestAtText(props.schedule);
    const { logGroup, role } = functionLogsAndRole(
      this,
      'shieldwatch digest: reads the history, publishes the digest to the alert topic once per period',
    );
    this.logGroup = logGroup;
    this.role = role;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...DIGEST_QUERY_LEADING_KEYS] } },
      }),
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...DIGEST_ITEM_ACTIONS],
        resources: [props.table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [...DIGEST_ITEM_LEADING_KEYS] },
        },
      }),
    );

    this.function = new NodejsFunction(this, 'Function', {
      ...bundledFunction(DIGEST_ENTRY),
      memorySize: DIGEST_MEMORY_MB,
      timeout: DIGEST_TIMEOUT,
      role: this.role,
      logGroup: this.logGroup,
      description: `shieldwatch: publishes the ${every} digest at ${at} ${tz}`,
      environment: {
        ...settingsEnvironment({
          table: props.table.tableName,
          topicArn: props.topic.topicArn,
          monitorName: props.monitorName,
          digest: every,
          digestAt: at,
          digestTz: tz,
          maintenance: props.maintenance,
        }),
        ...(props.page === undefined
          ? {}
          : { [DIGEST_ENV.pageUrl]: props.page.url, [DIGEST_ENV.pageMode]: props.page.mode }),
        ...powertoolsEnvironment('digest'),
      },
    });
    props.topic.grantPublish(this.function);
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason:
        'Publishing to the KMS-encrypted topic needs GenerateDataKey; the wildcard only adds its ' +
        'WithoutPlaintext variant, on the topic key alone (CDK grantPublish).',
    });

    this.schedule = scheduledInvoke(this, this.function, {
      expression: ScheduleExpression.cron({
        minute: String(props.schedule.minute),
        timeZone: TimeZone.of(tz),
      }),
      roleDescription: 'shieldwatch digest schedule: invokes the digest function',
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      description: `shieldwatch: the ${every} digest, due at ${at} ${tz}; hourly so a missed run is made good`,
    });
  }
}
