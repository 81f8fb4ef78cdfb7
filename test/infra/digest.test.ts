/**
 * The digest in the stack (CONTRACT §19, docs/digest.md): context `digest`, `digestAt`, `digestTz` checked at
 * synth; when on, a function of its own on an hourly schedule at the minute of `digestAt` in `digestTz`, with
 * the catalogue's settings in its environment and a role that reads the history and writes only its own items.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEY } from '../../lambda/adapters/table-schema.ts';
import { DIGEST_ENV, loadDigestConfig } from '../../lambda/digest/digest-env.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import {
  DIGEST_ITEM_LEADING_KEYS,
  DIGEST_QUERY_LEADING_KEYS,
  DIGEST_TIMEOUT,
} from '../../lib/constructs/digest-publisher.ts';
import { PUBLISHER_LEADING_KEYS } from '../../lib/constructs/status-page-publisher.ts';
import { parseMonitorContext } from '../../lib/context.ts';
import { contextProblems, renderCfn, resourceIdStartingWith, synthMonitor, TEST_API_URL } from './synth.ts';

const base = { apiUrl: TEST_API_URL };
const berlin = { digest: 'daily', digestAt: '07:30', digestTz: 'Europe/Berlin' };

type Statement = {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, string[]>>;
};

function digestFunction(template: Template) {
  const id = resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Digest');
  return { id, properties: template.findResources('AWS::Lambda::Function')[id]!['Properties'] };
}

/** The statements of the policies attached to the digest function's role. */
function digestStatements(template: Template): Statement[] {
  const role = resourceIdStartingWith(template, 'AWS::IAM::Role', 'DigestRole');
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy['Properties'].Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
    .flatMap((policy) => policy['Properties'].PolicyDocument.Statement as Statement[]);
}

const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

describe('context digest, digestAt, digestTz', () => {
  it('is off by default, and when on keeps the schedule as the function checks it', () => {
    expect(parseMonitorContext(base).digest).toBeUndefined();
    expect(parseMonitorContext({ ...base, digest: 'off' }).digest).toBeUndefined();
    expect(parseMonitorContext({ ...base, ...berlin }).digest).toEqual({
      every: 'daily',
      hour: 7,
      minute: 30,
      tz: 'Europe/Berlin',
    });
    expect(parseMonitorContext({ ...base, digest: 'weekly' }).digest).toEqual({
      every: 'weekly',
      hour: 8,
      minute: 0,
      tz: 'UTC',
    });
  });

  it('fails synth naming each bad key', () => {
    // Act
    const problems = contextProblems({ ...base, digest: 'hourly', digestAt: '25:00', digestTz: 'Mars/Base' });

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(/^digest: .*hourly/),
      expect.stringMatching(/^digestAt: .*25:00/),
      expect.stringMatching(/^digestTz: .*Mars\/Base/),
    ]);
    expect(() => synthMonitor({ digest: 'hourly' })).toThrow(/digest: /);
  });

  it.each([
    [{ digest: 'daily', digestAt: 7 }, /^digestAt: expected text/],
    [{ digestAt: '07:30' }, /^digestAt set while digest is off/],
  ])('refuses %j', (context, problem) => {
    expect(contextProblems({ ...base, ...context })).toEqual([expect.stringMatching(problem)]);
  });
});

describe('the stack with digest daily at 07:30 Europe/Berlin', () => {
  let template: Template;
  beforeAll(() => {
    template = synthMonitor(berlin);
  });

  it('runs the digest function hourly at minute 30 in Europe/Berlin, with retries within the hour', () => {
    // Act
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule')).filter(
      (s) => renderCfn(s['Properties'].Target.Arn) === `<${digestFunction(template).id}.Arn>`,
    );

    // Assess
    expect(schedules).toHaveLength(1);
    const properties = schedules[0]!['Properties'];
    expect(properties.ScheduleExpression).toBe('cron(30 * * * ? *)');
    expect(properties.ScheduleExpressionTimezone).toBe('Europe/Berlin');
    expect(properties.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    expect(properties.Target.RetryPolicy).toEqual({
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 3600,
    });
  });

  it('gives the function the three settings and the topic, and no API key or secret', () => {
    // Act
    const { properties } = digestFunction(template);
    const env = properties.Environment.Variables as Record<string, unknown>;

    // Assess
    expect(properties.MemorySize).toBe(512);
    expect(properties.Timeout).toBe(DIGEST_TIMEOUT.toSeconds());
    expect(properties.Handler).toBe('index.handler');
    expect(env).toMatchObject({
      [SETTINGS.digest.env]: 'daily',
      [SETTINGS.digestAt.env]: '07:30',
      [SETTINGS.digestTz.env]: 'Europe/Berlin',
    });
    expect(renderCfn(env[SETTINGS.topicArn.env])).toMatch(/^<Alerts/);
    expect(renderCfn(env[SETTINGS.table.env])).toMatch(/^<Snapshots/);
    expect(Object.keys(env).filter((name) => /KEY|SECRET|API_URL|ACK/.test(name))).toEqual([]);
    expect(env[DIGEST_ENV.pageUrl]).toBeUndefined();
    expect(template.findOutputs('DigestFunctionName')['DigestFunctionName']?.['Value']).toEqual({
      Ref: digestFunction(template).id,
    });
  });

  it("is an environment the function's own loader accepts", () => {
    // Prepare
    const env = digestFunction(template).properties.Environment.Variables as Record<string, unknown>;
    const resolved = Object.fromEntries(
      Object.entries(env).map(([name, value]) => [
        name,
        typeof value === 'string'
          ? value
          : name === SETTINGS.topicArn.env
            ? 'arn:aws:sns:eu-west-1:123456789012:alerts'
            : 'shieldwatch-table',
      ]),
    );

    // Act
    const config = loadDigestConfig(resolved);

    // Assess
    expect(config.schedule).toEqual({ every: 'daily', hour: 7, minute: 30, tz: 'Europe/Berlin' });
  });

  it('lets the role Query the history and its outbox, and read and write only its state, events and outbox', () => {
    // Act
    const dynamo = digestStatements(template).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('dynamodb:')),
    );

    // Assess
    expect(dynamo).toHaveLength(2);
    const query = dynamo.find((s) => actionsOf(s).includes('dynamodb:Query'))!;
    expect(actionsOf(query)).toEqual(['dynamodb:Query']);
    expect(query.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...PUBLISHER_LEADING_KEYS, KEY.outbox] },
    });
    expect(DIGEST_QUERY_LEADING_KEYS).toEqual([...PUBLISHER_LEADING_KEYS, KEY.outbox]);
    const items = dynamo.find((s) => s !== query)!;
    expect([...actionsOf(items)].sort()).toEqual([
      'dynamodb:BatchWriteItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(items.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [KEY.state, KEY.event, KEY.outbox] },
    });
    expect(DIGEST_ITEM_LEADING_KEYS).toEqual([KEY.state, KEY.event, KEY.outbox]);
    for (const statement of dynamo) expect(renderCfn(statement.Resource)).toMatch(/^<Snapshots\w+\.Arn>$/);
  });

  it('lets the role publish to the alert topic under its key, and nothing else', () => {
    // Act
    const statements = digestStatements(template);
    const actions = statements.flatMap(actionsOf);

    // Assess
    const publish = statements.find((s) => actionsOf(s).includes('sns:Publish'))!;
    expect(renderCfn(publish.Resource)).toMatch(/^<Alerts/);
    expect(actions.filter((a) => !/^(dynamodb|logs):/.test(a)).sort()).toEqual([
      'kms:Decrypt',
      'kms:GenerateDataKey*',
      'sns:Publish',
    ]);
    expect(actions.some((a) => a.startsWith('secretsmanager:') || a.startsWith('s3:'))).toBe(false);
  });
});

describe('the stack with digest and a status page', () => {
  it.each(['private', 'public'] as const)('links a %s page in the function environment', (mode) => {
    // Act
    const template = synthMonitor({ digest: 'weekly', statusPage: mode });
    const env = digestFunction(template).properties.Environment.Variables as Record<string, unknown>;

    // Assess
    expect(renderCfn(env[DIGEST_ENV.pageUrl])).toMatch(
      /^https:\/\/<StatusPageDistribution\w+\.DomainName>\/$/,
    );
    expect(env[DIGEST_ENV.pageMode]).toBe(mode);
    expect(
      template.findResources('AWS::Scheduler::Schedule', {
        Properties: { ScheduleExpression: 'cron(0 * * * ? *)', ScheduleExpressionTimezone: 'UTC' },
      }),
    ).not.toEqual({});
  });
});

describe('the stack with digest off', () => {
  it('has no digest function, schedule or output', () => {
    // Act
    const template = synthMonitor({ digest: 'off' });

    // Assess
    const functions = Object.keys(template.findResources('AWS::Lambda::Function'));
    expect(functions.filter((id) => id.startsWith('Digest'))).toEqual([]);
    const schedules = Object.keys(template.findResources('AWS::Scheduler::Schedule'));
    expect(schedules.filter((id) => id.startsWith('Digest'))).toEqual([]);
    expect(template.findOutputs('DigestFunctionName')).toEqual({});
  });
});
