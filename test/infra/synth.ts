/**
 * Synthesis helpers for the infrastructure tests: the stack as `cdk synth` builds it (the context of
 * cdk.json, feature flags included), with bundling skipped unless a test needs the bundle.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContextError, parseMonitorContext } from '../../lib/context.ts';
import { MonitorStack } from '../../lib/monitor-stack.ts';

/** The project root. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The `context` of cdk.json: feature flags, telemetry off (no apiUrl: a deploy must name its API). */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(`${projectRoot}cdk.json`, 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** Options of {@link synthMonitor}. */
export interface SynthOptions {
  /**
   * Run esbuild (needs lambda/handler.ts).
   * @default false
   */
  readonly bundle?: boolean;
  /** Where to write the cloud assembly. @default - a temporary directory */
  readonly outdir?: string;
}

/** The API the stack tests monitor unless they give another `apiUrl` (cdk.json has none). */
export const TEST_API_URL = 'https://api.example.com';

/** Builds the app of bin/app.ts (without cdk-nag) with extra context (`apiUrl` {@link TEST_API_URL} unless given); returns the stack. */
export function buildMonitor(
  context: Record<string, unknown> = {},
  options: SynthOptions = {},
): MonitorStack {
  const app = new App({
    context: {
      ...cdkJsonContext(),
      apiUrl: TEST_API_URL,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
    // The built-in CloudFormation schema check adds ~1.5 s per synth; `cdk synth` in CI runs it.
    builtinCloudFormationValidation: false,
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
  });
  return new MonitorStack(app, 'Shieldwatch');
}

/** Synthesizes the stack with extra context and returns its template. */
export function synthMonitor(context: Record<string, unknown> = {}, options: SynthOptions = {}): Template {
  return Template.fromStack(buildMonitor(context, options));
}

/**
 * The context of the stack tests that exercise every construct: two networks (one with quotes), email and SMS
 * subscriptions, a status path, a retention and two figure fields; the secret is created.
 */
export const fullContext = {
  networks: 'net-1,net"2"',
  alertEmail: 'ops@example.com,oncall@example.org',
  alertSms: '+14155550100',
  statusPath: 'data.filter.state',
  retentionDays: '30',
  figureFields: 'traffic.in_pps, links.0.pps',
};

/** The context of a stack with an existing secret, a cron schedule and reserved concurrency, nothing optional. */
export const existingSecretContext = {
  apiKeySecretName: 'shieldwatch/api-key',
  schedule: 'cron(0/5 8-17 * * ? *)',
  reservedConcurrency: 1,
};

/** The context of a stack with every alert channel: Slack, Teams, PagerDuty and a webhook (docs/channels.md). */
export const channelsContext = {
  slackWorkspaceId: 'T07EA123LEP',
  slackChannelId: 'C07EZ1ABC23',
  teamsTenantId: '12345678-1234-1234-1234-123456789012',
  teamsTeamId: '87654321-4321-4321-4321-210987654321',
  teamsChannelId: '19%3ab6ef35dc342d4b9e9fc5ee1c56e1ad1f%40thread.tacv2',
  pagerDutyRoutingKeySecret: 'shieldwatch/pagerduty',
  webhookUrlSecret: 'shieldwatch/webhook-url',
};

/** The logical ids of the resources of an unsharded stack that creates its secret. */
export type ResourceIds = Record<
  'table' | 'topic' | 'key' | 'secret' | 'fn' | 'logs' | 'queue' | 'role',
  string
>;

/** The logical ids of the one table, topic, key, secret, function, log group, schedule queue and function role. */
export function resourceIds(template: Template): ResourceIds {
  return {
    table: onlyResourceId(template, 'AWS::DynamoDB::Table'),
    topic: onlyResourceId(template, 'AWS::SNS::Topic'),
    key: onlyResourceId(template, 'AWS::KMS::Key'),
    // The acknowledge function (docs/acknowledge.md) has a secret, function, log group and role of its own.
    secret: resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'ApiKey'),
    fn: resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Poller'),
    logs: resourceIdStartingWith(template, 'AWS::Logs::LogGroup', 'Poller'),
    queue: resourceIdStartingWith(template, 'AWS::SQS::Queue', 'Schedule'),
    role: resourceIdStartingWith(template, 'AWS::IAM::Role', 'PollerRole'),
  };
}

/** Every statement of every IAM policy of the template. */
export function policyStatements(
  template: Template,
): Array<{ Action: string | string[]; Resource: unknown; Effect: string }> {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy['Properties'].PolicyDocument.Statement,
  );
}

/** The input a schedule sends: a scheduled event, with a shard's networks and pollFilter when sharded. */
export type ScheduleInput = {
  networks?: string[];
  pollFilter?: boolean;
  shard?: number;
  shards?: number;
  'detail-type'?: string;
};

/** The schedules of the template in order, each with its properties and its parsed input. */
export function schedulesOf(template: Template) {
  return Object.values(template.findResources('AWS::Scheduler::Schedule')).map((schedule) => ({
    properties: schedule['Properties'],
    input: JSON.parse(renderCfn(schedule['Properties'].Target.Input)) as ScheduleInput,
  }));
}

/** The body of the one dashboard, rendered by {@link renderCfn}. */
export function dashboardBody(template: Template): string {
  const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!;
  return renderCfn(dashboard['Properties'].DashboardBody);
}

/** The logical id of the only resource of a type. */
export function onlyResourceId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
  return ids[0]!;
}

/** The logical id of the only resource of a type whose id starts with `prefix` (its construct path). */
export function resourceIdStartingWith(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1)
    throw new Error(`expected one ${type} with an id starting ${prefix}, found ${ids.length}`);
  return ids[0]!;
}

/**
 * Renders a CloudFormation value (Fn::Join, Ref, Fn::GetAtt) to a string with `<Ref>` / `<Id.Attr>`
 * placeholders, to read dashboard bodies and ARNs built from parts.
 */
export function renderCfn(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return `<${String(object['Ref'])}>`;
  if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(renderCfn).join(separator);
  }
  if ('Fn::Sub' in object) return String(object['Fn::Sub']);
  return JSON.stringify(value);
}

/** The problems the context check finds in `values` (it must find some: a valid context fails the test). */
export function contextProblems(values: Record<string, unknown>): readonly string[] {
  try {
    parseMonitorContext(values);
  } catch (error) {
    if (error instanceof ContextError) return error.problems;
    throw error;
  }
  throw new Error('expected a ContextError');
}
