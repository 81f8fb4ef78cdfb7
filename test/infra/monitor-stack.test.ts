import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEY } from '../../lambda/adapters/dynamo-store.ts';
import { MetricName } from '../../lambda/metric-names.ts';
import { ContextError } from '../../lib/context.ts';
import {
  buildMonitor,
  dashboardBody,
  existingSecretContext,
  fullContext,
  policyStatements,
  type ResourceIds,
  renderCfn,
  resourceIdStartingWith,
  resourceIds,
  schedulesOf,
  synthMonitor,
} from './synth.ts';

// The stack's wiring: grants, outputs, what a setting changes across constructs, sharding and context checks.
// Each construct's own resources are tested in test/infra/constructs/, one file per lib/constructs/ file.

describe('MonitorStack with networks, subscriptions and a new secret', () => {
  let template: Template;
  let ids: ResourceIds;

  beforeAll(() => {
    template = synthMonitor(fullContext);
    ids = resourceIds(template);
  });

  describe('IAM', () => {
    it('gives the function exactly its table actions, publish on its topic and key, and read of its secret', () => {
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: ids.role }],
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Allow',
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Resource: { 'Fn::GetAtt': [ids.logs, 'Arn'] },
            },
            {
              Effect: 'Allow',
              Action: [
                'dynamodb:BatchWriteItem',
                'dynamodb:GetItem',
                'dynamodb:PutItem',
                'dynamodb:Query',
                'dynamodb:UpdateItem',
              ],
              Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
            },
            {
              Effect: 'Allow',
              Action: 'dynamodb:DeleteItem',
              Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
              Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['outbox'] } },
            },
            { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: ids.topic } },
            {
              Effect: 'Allow',
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
              Resource: { 'Fn::GetAtt': [ids.key, 'Arn'] },
            },
            {
              Effect: 'Allow',
              Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
              Resource: { Ref: ids.secret },
            },
            // The acknowledge links' signing key, to sign the links in alerts (docs/acknowledge.md).
            {
              Effect: 'Allow',
              Action: 'secretsmanager:GetSecretValue',
              Resource: {
                Ref: resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'AckSigningKey'),
              },
            },
          ],
        },
      });
    });

    it('lets the function delete items only under the partition keys the store deletes', () => {
      // Act
      const deletes = policyStatements(template).filter((s) =>
        [s.Action].flat().some((a) => a === 'dynamodb:DeleteItem' || a === 'dynamodb:*'),
      );

      // Assess
      expect(deletes).toEqual([
        {
          Effect: 'Allow',
          Action: 'dynamodb:DeleteItem',
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
          Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [KEY.outbox] } },
        },
      ]);
    });

    it('attaches no managed policy to the function role (AWSLambdaBasicExecutionRole writes to any log group)', () => {
      template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        },
        ManagedPolicyArns: Match.absent(),
      });
    });

    it('has no wildcard resource on DynamoDB, SNS, KMS or Secrets Manager actions', () => {
      const sensitive = /^(dynamodb|sns|kms|secretsmanager):/;
      const statements = policyStatements(template).filter((s) =>
        [s.Action].flat().some((a) => sensitive.test(a)),
      );
      expect(statements.length).toBeGreaterThanOrEqual(4);
      for (const statement of statements) {
        for (const resource of [statement.Resource].flat()) {
          expect(renderCfn(resource)).not.toContain('*');
        }
      }
    });
  });

  describe('outputs', () => {
    it.each([
      ['TableName', { Ref: 'table' }],
      ['TopicArn', { Ref: 'topic' }],
    ] as const)('outputs %s', (name, value) => {
      template.hasOutput(name, { Value: { Ref: ids[value.Ref] } });
    });

    it('outputs the secret name and the dashboard URL', () => {
      const outputs = template.findOutputs('*');
      expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['SecretName', 'DashboardUrl']));
      // The generated name, taken out of the secret's ARN.
      expect(JSON.stringify(outputs['SecretName']!['Value'])).toContain(`{"Ref":"${ids.secret}"}`);
      expect(renderCfn(outputs['DashboardUrl']!['Value'])).toMatch(
        /^https:\/\/<AWS::Region>\.console\.aws\.amazon\.com\/cloudwatch\/home\?region=<AWS::Region>#dashboards\/dashboard\/<Dashboard\w+>$/,
      );
    });
  });
});

describe('MonitorStack with an existing secret, a cron schedule and nothing optional', () => {
  let template: Template;

  beforeAll(() => {
    template = synthMonitor(existingSecretContext);
  });

  it('outputs the name of the existing secret', () => {
    template.hasOutput('SecretName', { Value: 'shieldwatch/api-key' });
  });

  it('sizes the timeout, retries and alarm period to the schedule', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0/5 8-17 * * ? *)',
      Target: { RetryPolicy: { MaximumEventAgeInSeconds: 300 } },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 120,
      ReservedConcurrentExecutions: 1,
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumEventAgeInSeconds: 300 });
    // The longest gap is the night, 17:55 to 08:00.
    for (const metricName of [MetricName.CyclesCompleted, MetricName.FilterLatency]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metricName,
        Period: 14 * 3600 + 5 * 60,
        EvaluationPeriods: 3,
      });
    }
    // Errors and graphs follow the busiest rate.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Period: 300 });
  });

  it('leaves out what the context leaves out', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          SHIELDWATCH_NETWORKS: '',
          SHIELDWATCH_STATUS_PATH: Match.absent(),
          SHIELDWATCH_FIGURE_FIELDS: Match.absent(),
          SHIELDWATCH_FIGURE_METRICS: Match.absent(),
        },
      },
    });
    const body = dashboardBody(template);
    expect(body).not.toContain('Figure.');
    expect(body).toContain('No networks configured');
  });
});

describe('MonitorStack with shardSize', () => {
  describe('five networks in shards of two', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor({ networks: 'net-1,net-2,net-3,net-4,net"5"', shardSize: '2' });
    });

    it('leaves the network list out of the function environment', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            SHIELDWATCH_NETWORKS: Match.absent(),
            SHIELDWATCH_API_URL: 'https://api.example.com',
            SHIELDWATCH_TABLE: Match.anyValue(),
          },
        },
      });
    });

    it('keeps one no-cycle alarm on the cycles of all shards, and no figure graph without figure fields', () => {
      template.resourceCountIs('AWS::CloudWatch::Alarm', 5);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: MetricName.CyclesCompleted,
        Dimensions: [{ Name: 'service', Value: 'shieldwatch' }],
        Threshold: 1,
      });
      const body = dashboardBody(template);
      expect(body).not.toContain('by network (metric');
      expect(body).toContain('No figure fields chosen');
    });
  });

  it('alarms when the filter goes unobserved, which only shard 1 reports, whatever the other shards do', () => {
    // Act
    const template = synthMonitor({ networks: 'a,b,c', shardSize: 1 });

    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: MetricName.FilterLatency,
      Statistic: 'SampleCount',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 3,
      TreatMissingData: 'breaching',
    });
  });

  it.each([
    ['no more networks than a shard', { networks: 'a,b', shardSize: 5 }, [['a', 'b']]],
    ['no networks', { shardSize: 5 }, [[]]],
    ['one network per shard', { networks: 'a,b,c', shardSize: 1 }, [['a'], ['b'], ['c']]],
  ])(
    'with %s, puts every network in a schedule input and none in the environment',
    (_name, context, slices) => {
      // Act
      const template = synthMonitor(context);

      // Assess
      expect(schedulesOf(template).map((s) => s.input)).toEqual(
        slices.map((networks, i) => expect.objectContaining({ networks, pollFilter: i === 0 })),
      );
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: { SHIELDWATCH_NETWORKS: Match.absent() } },
      });
    },
  );

  it('deploys a fleet of 3,000 networks: 10 schedules, and without figure fields no figure graphs but a note', () => {
    // Prepare
    const networks = Array.from({ length: 3000 }, (_, i) => `network-${i + 1}`);

    // Act
    const template = synthMonitor({ networks, shardSize: 300 });

    // Assess
    const schedules = schedulesOf(template);
    expect(schedules).toHaveLength(10);
    expect(schedules.flatMap((s) => s.input.networks)).toEqual(networks);
    expect(schedules.filter((s) => s.input.pollFilter)).toHaveLength(1);
    const body = dashboardBody(template);
    expect(body).not.toContain('by network (metric');
    expect(body).toContain('No figure fields chosen');
    expect(body).not.toContain('network-1');
  });

  it('graphs each chosen figure field of a 3,000-network fleet once, a SEARCH over the networks (issue 14.3)', () => {
    // Prepare
    const networks = Array.from({ length: 3000 }, (_, i) => `network-${i + 1}`);

    // Act
    const template = synthMonitor({ networks, shardSize: 300, figureFields: ['in_pps', 'in_bps', 'drops'] });

    // Assess
    const body = dashboardBody(template);
    expect(body.match(/by network \(metric Figure\.\w+\)/g)).toEqual([
      'by network (metric Figure.in_pps)',
      'by network (metric Figure.in_bps)',
      'by network (metric Figure.drops)',
    ]);
    expect(body.match(/SEARCH\(/g)).toHaveLength(3);
    expect(body).not.toContain('No figure fields chosen');
  });

  it('fails synth when a slice would not fit its schedule input, telling to lower shardSize', () => {
    const networks = Array.from({ length: 1000 }, (_, i) => `network-${i + 1}`);
    expect(() => buildMonitor({ networks, shardSize: 1000 })).toThrow(ContextError);
    expect(() => buildMonitor({ networks, shardSize: 1000 })).toThrow(
      /shardSize: shard 1 of 1 .* more than the 8,192 a schedule carries: lower shardSize to \d+ or less/,
    );
  });
});

describe('MonitorStack context validation', () => {
  it.each([
    [{ figureFields: 'traffic..pps' }, /figureFields: "traffic\.\.pps" has an empty segment/],
    [{ figureFields: 'a,b,c,d,e,f,g,h,i,j,k' }, /figureFields: lists 11 fields, more than 10/],
    [{ figureFields: 3 }, /figureFields: expected a comma-separated list or an array of dot paths/],
    [{ figureFields: ['a', 'a'] }, /figureFields: lists "a" twice/],
    [{ figureMetrics: 5 }, /figureMetrics: no longer a context key: .*figureFields/],
  ])('fails synth on figure fields %j, naming the key (issue 14.3)', (context, message) => {
    expect(() => buildMonitor(context)).toThrow(ContextError);
    expect(() => buildMonitor(context)).toThrow(message);
  });

  it('fails synth without shardSize when the networks would not fit the environment, suggesting it', () => {
    const networks = Array.from({ length: 300 }, (_, i) => `network-${i + 1}`);
    expect(() => buildMonitor({ networks })).toThrow(
      /networks: 300 ids take 3,\d{3} characters, more than the 2,048 .*: set shardSize/,
    );
  });

  it('fails synth with a message that names the bad key', () => {
    expect(() => buildMonitor({ apiUrl: 'http://api.example.com', alertSms: '0155' })).toThrow(ContextError);
    expect(() => buildMonitor({ apiUrl: 'http://api.example.com', alertSms: '0155' })).toThrow(
      /apiUrl: expected an https:\/\/ URL[\s\S]*alertSms: "0155" is not an E\.164 phone number/,
    );
  });
});
