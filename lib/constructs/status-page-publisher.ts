import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { KEY } from '../../lambda/adapters/table-schema.ts';
import { readReportAssets } from '../../lambda/report/build.ts';
import { settingsEnvironment } from '../../lambda/settings.ts';
import { PAGE_KEYS, PAGE_WINDOWS } from '../../lambda/status-page/pages.ts';
import { BUNDLED_ASSETS_FILE, PUBLISHER_ENV } from '../../lambda/status-page/publisher-env.ts';
import type { StatusPageMode } from '../context-status-page.ts';
import { bundledFunction, functionLogsAndRole, powertoolsEnvironment } from './function-defaults.ts';

/** The publisher's Lambda entry: its own bundle, nothing of it in the poller's. */
export const PUBLISHER_ENTRY = fileURLToPath(new URL('../../lambda/status-page-handler.ts', import.meta.url));

/**
 * Memory of the publisher: one publish of a week of one-minute history of 5 networks (60,000 snapshots) peaks
 * at 96 MB of heap above its start, dynalite's own work included (`bench/status-page-memory.ts`,
 * docs/status-page.md); 512 MB leaves room for more networks and buys CPU for rendering.
 */
export const PUBLISHER_MEMORY_MB = 512;

/** The partition keys the publisher may Query (IAM `dynamodb:LeadingKeys`): snapshots and events, no state. */
export const PUBLISHER_LEADING_KEYS = [KEY.filter, KEY.event, `${KEY.networkPrefix}*`] as const;

/** A publish may take this long, at most the interval less ten seconds so that two runs never overlap. */
export function publisherTimeout(everyMinutes: number): Duration {
  return Duration.seconds(Math.max(30, Math.min(everyMinutes * 60, 300) - 10));
}

/** Properties of {@link StatusPagePublisher}. */
export interface StatusPagePublisherProps {
  readonly mode: StatusPageMode;
  /** Minutes between two publishes (`statusPageEvery`). */
  readonly everyMinutes: number;
  readonly table: ITable;
  readonly bucket: IBucket;
  /** Charted on the private page; unset when the networks travel in the poller's schedules (sharded). */
  readonly networks?: readonly string[];
  readonly expectedStatus?: string;
  readonly rules?: string;
  readonly figureFields?: readonly string[];
}

/**
 * The function that rewrites the status page, on a schedule of its own: it reads the table (Query only, on the
 * snapshot and event partitions) and writes the page's fixed objects to the bucket, nothing else. It shares
 * nothing with the poller but the table, so it never slows a poll cycle nor grows the poller's bundle.
 */
export class StatusPagePublisher extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly schedule: Schedule;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: StatusPagePublisherProps) {
    super(scope, id);
    const { logGroup, role } = functionLogsAndRole(
      this,
      'shieldwatch status page publisher: reads snapshots and events, writes the page',
    );
    this.logGroup = logGroup;
    this.role = role;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...PUBLISHER_LEADING_KEYS] } },
      }),
    );
    const written = props.mode === 'private' ? Object.values(PAGE_KEYS) : [PAGE_KEYS.index, PAGE_KEYS.status];
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: written.map((key) => props.bucket.arnForObjects(key)),
      }),
    );
    if (props.mode === 'public') {
      // A page turned from private to public must not keep serving its full reports.
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['s3:DeleteObject'],
          resources: PAGE_WINDOWS.map((window) => props.bucket.arnForObjects(window.key)),
        }),
      );
    }

    this.function = new NodejsFunction(this, 'Function', {
      ...bundledFunction(PUBLISHER_ENTRY, {
        // The report's chart library and its own CSS and script, which the handler cannot read from the
        // project once bundled, go beside it as one JSON file.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => {
            const file = join(mkdtempSync(join(tmpdir(), 'shieldwatch-page-')), BUNDLED_ASSETS_FILE);
            writeFileSync(file, JSON.stringify(readReportAssets()));
            return [`cp "${file}" "${join(outputDir, BUNDLED_ASSETS_FILE)}"`];
          },
        },
      }),
      memorySize: PUBLISHER_MEMORY_MB,
      timeout: publisherTimeout(props.everyMinutes),
      role: this.role,
      logGroup: this.logGroup,
      description: `shieldwatch: rewrites the ${props.mode} status page every ${props.everyMinutes} min`,
      // A missed publish is made good by the next one.
      retryAttempts: 0,
      environment: {
        ...settingsEnvironment({
          table: props.table.tableName,
          networks: props.networks?.length ? props.networks : undefined,
          expectedStatus: props.expectedStatus,
          rules: props.rules,
          figureFields: props.figureFields?.length ? props.figureFields : undefined,
        }),
        [PUBLISHER_ENV.bucket]: props.bucket.bucketName,
        [PUBLISHER_ENV.mode]: props.mode,
        [PUBLISHER_ENV.everySeconds]: String(props.everyMinutes * 60),
        ...powertoolsEnvironment('status-page'),
      },
    });

    const invokeRole = new Role(this, 'ScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: 'shieldwatch status page schedule: invokes the publisher',
    });
    this.schedule = new Schedule(this, 'Schedule', {
      schedule: ScheduleExpression.rate(Duration.minutes(props.everyMinutes)),
      target: new LambdaInvoke(this.function, {
        role: invokeRole,
        retryAttempts: 0,
        maxEventAge: Duration.minutes(Math.max(1, props.everyMinutes)),
      }),
      description: `shieldwatch: rewrites the status page every ${props.everyMinutes} min`,
    });
    Validations.of(invokeRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.function.node.defaultChild as CfnFunction)}.Arn>:*]`,
      reason:
        'CDK grantInvoke adds the function ARN with :* so that versions and aliases of this one function ' +
        'can be invoked; no other function matches.',
    });
  }
}
