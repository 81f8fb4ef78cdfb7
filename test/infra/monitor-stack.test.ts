import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEY } from '../../lambda/adapters/dynamo-store.ts';
import { loadConfig } from '../../lambda/config.ts';
import { failureMetricName, MetricName } from '../../lambda/metric-names.ts';
import { pollerTimeout } from '../../lib/constructs/poller-function.ts';
import { ContextError } from '../../lib/context.ts';
import { buildMonitor, onlyResourceId, renderCfn, resourceIdStartingWith, synthMonitor } from './synth.ts';

const fullContext = {
  networks: 'net-1,net"2"',
  alertEmail: 'ops@example.com,oncall@example.org',
  alertSms: '+14155550100',
  statusPath: 'data.filter.state',
  retentionDays: '30',
  figureFields: 'traffic.in_pps, links.0.pps',
};

/** Every statement of every IAM policy of the template. */
function policyStatements(
  template: Template,
): Array<{ Action: string | string[]; Resource: unknown; Effect: string }> {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy['Properties'].PolicyDocument.Statement,
  );
}

describe('MonitorStack with networks, subscriptions and a new secret', () => {
  let template: Template;
  let ids: Record<'table' | 'topic' | 'key' | 'secret' | 'fn' | 'logs' | 'queue' | 'role', string>;

  beforeAll(() => {
    template = synthMonitor(fullContext);
    ids = {
      table: onlyResourceId(template, 'AWS::DynamoDB::Table'),
      topic: onlyResourceId(template, 'AWS::SNS::Topic'),
      key: onlyResourceId(template, 'AWS::KMS::Key'),
      secret: onlyResourceId(template, 'AWS::SecretsManager::Secret'),
      fn: onlyResourceId(template, 'AWS::Lambda::Function'),
      logs: onlyResourceId(template, 'AWS::Logs::LogGroup'),
      queue: resourceIdStartingWith(template, 'AWS::SQS::Queue', 'Schedule'),
      role: Object.keys(
        template.findResources('AWS::IAM::Role', {
          Properties: {
            AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] },
          },
        }),
      )[0]!,
    };
  });

  describe('schedule', () => {
    it('invokes the function at the configured expression with a retry policy and a dead-letter queue', () => {
      template.resourceCountIs('AWS::Scheduler::Schedule', 1);
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 60 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
        },
      });
    });

    it('sends the shape of an EventBridge scheduled event', () => {
      const schedule = Object.values(template.findResources('AWS::Scheduler::Schedule'))[0]!;
      const input = JSON.parse(renderCfn(schedule['Properties'].Target.Input));
      expect(input).toEqual({
        version: '0',
        id: '<aws.scheduler.execution-id>',
        'detail-type': 'Scheduled Event',
        source: 'aws.scheduler',
        account: '<AWS::AccountId>',
        time: '<aws.scheduler.scheduled-time>',
        region: '<AWS::Region>',
        resources: ['<aws.scheduler.schedule-arn>'],
        detail: {},
      });
    });

    it('keeps dead letters encrypted, TLS-only, for 14 days', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 1_209_600,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it("lets Scheduler's own role invoke the function and write to the queue, nothing else", () => {
      const role = onlyResourceId(template, 'AWS::Scheduler::Schedule');
      const schedule = template.findResources('AWS::Scheduler::Schedule')[role]!;
      const roleId = schedule['Properties'].Target.RoleArn['Fn::GetAtt'][0];
      template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [
            Match.objectLike({
              Principal: { Service: 'scheduler.amazonaws.com' },
              Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
            }),
          ],
        },
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: roleId }],
        PolicyDocument: {
          Statement: [
            Match.objectLike({ Action: 'lambda:InvokeFunction' }),
            { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
          ],
        },
      });
    });
  });

  describe('function', () => {
    it('runs Node.js 24 on arm64, sized for a one-minute schedule, with its own log group', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 256,
        Timeout: 30,
        LoggingConfig: { LogGroup: { Ref: ids.logs } },
        Role: { 'Fn::GetAtt': [ids.role, 'Arn'] },
        ReservedConcurrentExecutions: Match.absent(),
      });
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('has the SHIELDWATCH_* environment of CONTRACT §3 and the Powertools settings, never the key', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            SHIELDWATCH_API_URL: 'https://api.example.com',
            SHIELDWATCH_API_KEY_SECRET: { Ref: ids.secret },
            SHIELDWATCH_API_KEY: Match.absent(),
            SHIELDWATCH_NETWORKS: 'net-1,net"2"',
            SHIELDWATCH_STATUS_PATH: 'data.filter.state',
            SHIELDWATCH_TABLE: { Ref: ids.table },
            SHIELDWATCH_TOPIC_ARN: { Ref: ids.topic },
            SHIELDWATCH_RETENTION_DAYS: '30',
            SHIELDWATCH_FIGURE_FIELDS: 'traffic.in_pps,links.0.pps',
            POWERTOOLS_SERVICE_NAME: 'shieldwatch',
            POWERTOOLS_METRICS_NAMESPACE: 'Shieldwatch',
            POWERTOOLS_LOG_LEVEL: 'INFO',
          },
        },
      });
    });

    it('retries a failed cycle only while it is younger than one schedule interval', () => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: ids.fn },
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 60,
      });
    });
  });

  describe('table', () => {
    it('is on demand, keyed pk/sk, with TTL on expiresAt and point-in-time recovery', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        ProvisionedThroughput: Match.absent(),
      });
    });

    it('is retained when the stack is deleted or the table replaced', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });
  });

  describe('alerts', () => {
    it('encrypts the topic with a rotating customer-managed key', () => {
      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
      template.hasResourceProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: { 'Fn::GetAtt': [ids.key, 'Arn'] },
      });
    });

    it('lets CloudWatch use the key, so that alarms can publish to the encrypted topic', () => {
      template.hasResourceProperties('AWS::KMS::Key', {
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            }),
          ]),
        },
      });
    });

    it('lets CloudWatch use the key only on behalf of this account (the statement exactly)', () => {
      // Prepare
      const statements = Object.values(template.findResources('AWS::KMS::Key')).flatMap(
        (key) => key['Properties'].KeyPolicy.Statement as Array<{ Principal?: { Service?: string } }>,
      );

      // Act
      const cloudwatch = statements.filter((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');

      // Assess
      expect(cloudwatch).toEqual([
        {
          Sid: 'AllowCloudWatchAlarmsToPublishToTheEncryptedTopic',
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          Resource: '*',
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ]);
    });

    it("refuses publishing without TLS and allows this account's alarms", () => {
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: ids.topic }],
        PolicyDocument: {
          Statement: [
            {
              Sid: 'AllowPublishThroughSSLOnly',
              Effect: 'Deny',
              Principal: '*',
              Action: 'sns:Publish',
              Resource: { Ref: ids.topic },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Condition: Match.objectLike({
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              }),
            }),
          ],
        },
      });
    });

    it('subscribes every email address and phone number of the context', () => {
      template.resourceCountIs('AWS::SNS::Subscription', 3);
      for (const [protocol, endpoint] of [
        ['email', 'ops@example.com'],
        ['email', 'oncall@example.org'],
        ['sms', '+14155550100'],
      ]) {
        template.hasResourceProperties('AWS::SNS::Subscription', {
          Protocol: protocol,
          Endpoint: endpoint,
          TopicArn: { Ref: ids.topic },
        });
      }
    });
  });

  describe('secret', () => {
    it('creates an empty secret: no value, no generated placeholder', () => {
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        SecretString: Match.absent(),
        GenerateSecretString: Match.absent(),
      });
    });
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

  describe('alarms', () => {
    it('has five alarms, each notifying the alert topic on alarm and on recovery', () => {
      template.resourceCountIs('AWS::CloudWatch::Alarm', 5);
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
      for (const alarm of alarms) {
        expect(alarm['Properties'].AlarmActions).toEqual([{ Ref: ids.topic }]);
        expect(alarm['Properties'].OKActions).toEqual([{ Ref: ids.topic }]);
      }
    });

    it('alarms on function errors', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.fn } }],
        Statistic: 'Sum',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it('alarms when no cycle completed in three schedule intervals, missing data breaching', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'Shieldwatch',
        MetricName: MetricName.CyclesCompleted,
        Dimensions: [{ Name: 'service', Value: 'shieldwatch' }],
        Statistic: 'Sum',
        Period: 60,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
      });
    });

    it('alarms when the filter status was not requested in three schedule intervals, missing data breaching', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmDescription: Match.stringLikeRegexp('filter status was not requested in 3 schedule intervals'),
        Namespace: 'Shieldwatch',
        MetricName: MetricName.FilterLatency,
        Dimensions: [{ Name: 'service', Value: 'shieldwatch' }],
        Statistic: 'SampleCount',
        Period: 60,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
        AlarmActions: [{ Ref: ids.topic }],
        OKActions: [{ Ref: ids.topic }],
      });
    });

    it('alarms on messages in the dead-letter queue', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
      });
    });
  });

  describe('dashboard', () => {
    type Widget = { type: string; properties: { title?: string; metrics?: unknown[][]; alarms?: string[] } };
    let widgets: Widget[];

    beforeAll(() => {
      const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!;
      widgets = JSON.parse(renderCfn(dashboard['Properties'].DashboardBody)).widgets;
    });

    const metricNames = (widget: Widget) =>
      (widget.properties.metrics ?? []).map((m) => (typeof m[0] === 'string' ? m[1] : m[0]));
    const titled = (title: string) => {
      const widget = widgets.find((w) => w.properties.title === title);
      if (widget === undefined) throw new Error(`no widget "${title}"`);
      return widget;
    };

    it('shows the state of the five alarms, the filter one among them', () => {
      const alarmIds = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
      const filterAlarm = Object.keys(
        template.findResources('AWS::CloudWatch::Alarm', {
          Properties: { MetricName: MetricName.FilterLatency },
        }),
      );
      const shown = titled('Monitor alarms').properties.alarms!;
      expect(shown).toHaveLength(5);
      expect(shown.map((arn) => arn.replace(/^<(\w+)\.Arn>$/, '$1')).sort()).toEqual(alarmIds.sort());
      expect(filterAlarm).toHaveLength(1);
    });

    it.each([
      ['Cycle outcomes', [MetricName.CyclesCompleted, MetricName.ApiFailures, 'Errors', 'Throttles']],
      ['API failures by kind', Object.values(failureMetricName)],
      ['Request latency (ms)', [MetricName.FilterLatency, MetricName.NetworkLatency]],
      ['Cycle duration (ms)', [MetricName.CycleDuration, 'Duration']],
      [
        'Status changes and alerts',
        [MetricName.StatusChanges, MetricName.AlertsPublished, MetricName.AlertPublishFailures],
      ],
    ])('graphs %s', (title, names) => {
      expect(metricNames(titled(title))).toEqual(expect.arrayContaining(names));
    });

    it.each([
      ['traffic.in_pps', 'Figure.traffic.in_pps'],
      ['links.0.pps', 'Figure.links.0.pps'],
    ])(
      'graphs the chosen field %s with a SEARCH on its metric over every network (issue 14.3)',
      (field, metric) => {
        const graph = titled(`${field} by network (metric ${metric})`).properties.metrics![0]![0] as {
          expression: string;
        };
        expect(graph.expression).toBe(
          `SEARCH('{Shieldwatch,NetworkId,service} MetricName="${metric}" service="shieldwatch"', 'Average', 60)`,
        );
      },
    );

    it('has one figure graph per chosen field and none per network', () => {
      const figureGraphs = widgets.filter((w) =>
        / by network \(metric Figure\./.test(w.properties.title ?? ''),
      );
      expect(figureGraphs).toHaveLength(2);
      expect(widgets.some((w) => (w.properties.title ?? '').startsWith('Network '))).toBe(false);
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
    template = synthMonitor({
      apiKeySecretName: 'shieldwatch/api-key',
      schedule: 'cron(0/5 8-17 * * ? *)',
      reservedConcurrency: 1,
    });
  });

  it('refers to the secret by name and creates none', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
    expect(renderCfn(fn['Properties'].Environment.Variables.SHIELDWATCH_API_KEY_SECRET)).toBe(
      'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-key',
    );
  });

  it('outputs the name of the existing secret', () => {
    template.hasOutput('SecretName', { Value: 'shieldwatch/api-key' });
  });

  it('lets the function read that one secret (the ?????? is its random suffix)', () => {
    const secretStatements = policyStatements(template).filter((s) =>
      [s.Action].flat().includes('secretsmanager:GetSecretValue'),
    );
    expect(secretStatements.map((s) => renderCfn(s.Resource))).toEqual([
      'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-key-??????',
    ]);
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
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!;
    const body = renderCfn(dashboard['Properties'].DashboardBody);
    expect(body).not.toContain('Figure.');
    expect(body).toContain('No networks configured');
  });
});

describe('MonitorStack with shardSize', () => {
  type Input = { networks?: string[]; pollFilter?: boolean; 'detail-type'?: string };
  const schedulesOf = (template: Template) =>
    Object.values(template.findResources('AWS::Scheduler::Schedule')).map((schedule) => ({
      properties: schedule['Properties'],
      input: JSON.parse(renderCfn(schedule['Properties'].Target.Input)) as Input,
    }));

  describe('five networks in shards of two', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor({ networks: 'net-1,net-2,net-3,net-4,net"5"', shardSize: '2' });
    });

    it('has one schedule per shard, each carrying its slice, only the first polling the filter', () => {
      // Act
      const inputs = schedulesOf(template).map((s) => s.input);

      // Assess
      expect(inputs.map(({ networks, pollFilter }) => ({ networks, pollFilter }))).toEqual([
        { networks: ['net-1', 'net-2'], pollFilter: true },
        { networks: ['net-3', 'net-4'], pollFilter: false },
        { networks: ['net"5"'], pollFilter: false },
      ]);
      expect(inputs.every((input) => input['detail-type'] === 'Scheduled Event')).toBe(true);
    });

    it('runs every schedule at the same expression, with the same retry policy, dead-letter queue and role', () => {
      const queue = resourceIdStartingWith(template, 'AWS::SQS::Queue', 'Schedule');
      const fn = onlyResourceId(template, 'AWS::Lambda::Function');
      const schedules = schedulesOf(template);
      expect(schedules).toHaveLength(3);
      const roles = new Set(schedules.map((s) => JSON.stringify(s.properties.Target.RoleArn)));
      expect(roles.size).toBe(1);
      for (const { properties } of schedules) {
        expect(properties).toMatchObject({
          ScheduleExpression: 'rate(1 minute)',
          State: 'ENABLED',
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: {
            Arn: { 'Fn::GetAtt': [fn, 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 60 },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queue, 'Arn'] } },
          },
        });
      }
    });

    it('says in each description which shard it is', () => {
      expect(schedulesOf(template).map((s) => s.properties.Description)).toEqual([
        'shieldwatch: one poll cycle per run (shard 1 of 3: the filter status and 2 networks)',
        'shieldwatch: one poll cycle per run (shard 2 of 3: 2 networks)',
        'shieldwatch: one poll cycle per run (shard 3 of 3: 1 network)',
      ]);
    });

    it('keeps the logical id of the unsharded schedule for the first shard', () => {
      const unsharded = Object.keys(synthMonitor().findResources('AWS::Scheduler::Schedule'));
      expect(Object.keys(template.findResources('AWS::Scheduler::Schedule'))[0]).toBe(unsharded[0]);
    });

    it('grants the one scheduler role invoke and send-to-queue once each', () => {
      const [schedule] = schedulesOf(template);
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: schedule!.properties.Target.RoleArn['Fn::GetAtt'][0] }],
        PolicyDocument: {
          Statement: [
            Match.objectLike({ Action: 'lambda:InvokeFunction' }),
            Match.objectLike({ Action: 'sqs:SendMessage' }),
          ],
        },
      });
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
      const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!;
      const body = renderCfn(dashboard['Properties'].DashboardBody);
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
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!;
    const body = renderCfn(dashboard['Properties'].DashboardBody);
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
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!;
    const body = renderCfn(dashboard['Properties'].DashboardBody);
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

describe("MonitorStack with the function's optional settings", () => {
  const optional = {
    expectedStatus: ['SHIELDWATCH_EXPECTED_STATUS', ' Active '],
    remindEvery: ['SHIELDWATCH_REMIND_EVERY', '1h'],
    confirmations: ['SHIELDWATCH_CONFIRMATIONS', '2'],
    alertAfter: ['SHIELDWATCH_ALERT_AFTER', '5'],
    concurrency: ['SHIELDWATCH_CONCURRENCY', '32'],
    requestTimeoutMs: ['SHIELDWATCH_TIMEOUT_MS', '2500'],
    figureFields: ['SHIELDWATCH_FIGURE_FIELDS', 'traffic.in_pps,links.0.pps'],
  } as const;
  const variables = Object.values(optional).map(([variable]) => variable);

  /** The optional variables of the function's environment. */
  function optionalEnvironment(context: Record<string, unknown>): Record<string, unknown> {
    const fn = Object.values(synthMonitor(context).findResources('AWS::Lambda::Function'))[0]!;
    const environment = fn['Properties'].Environment.Variables as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(environment).filter(([name]) => variables.includes(name as never)),
    );
  }

  it('passes none of them when the context sets none', () => {
    expect(optionalEnvironment({})).toEqual({});
  });

  it.each([
    ['expectedStatus', { expectedStatus: ' Active ' }],
    ['expectedStatus and remindEvery', { expectedStatus: ' Active ', remindEvery: '1h' }],
    ['confirmations', { confirmations: '2' }],
    ['alertAfter', { alertAfter: 5 }],
    ['concurrency', { concurrency: '32' }],
    ['requestTimeoutMs', { requestTimeoutMs: 2500 }],
    ['figureFields', { figureFields: 'traffic.in_pps,links.0.pps' }],
    ['all of them', Object.fromEntries(Object.entries(optional).map(([key, [, value]]) => [key, value]))],
  ])('passes exactly the variables of %s, as the function reads them', (_name, context) => {
    // Act
    const environment = optionalEnvironment(context);

    // Assess
    expect(environment).toEqual(
      Object.fromEntries(Object.keys(context).map((key) => optional[key as keyof typeof optional])),
    );
    const functionEnv = { SHIELDWATCH_API_URL: 'https://api.example.com', SHIELDWATCH_API_KEY: 'test-key' };
    expect(() => loadConfig({ ...functionEnv, ...(environment as Record<string, string>) })).not.toThrow();
  });

  it('fails synth on a bad value, and on remindEvery without expectedStatus, naming each key', () => {
    expect(() => buildMonitor({ remindEvery: '1h', concurrency: 0 })).toThrow(ContextError);
    expect(() => buildMonitor({ remindEvery: '1h', concurrency: 0 })).toThrow(
      /remindEvery: needs expectedStatus[\s\S]*concurrency: expected a whole number of requests in flight from 1 to 256/,
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

  it.each([
    [1, 30],
    [2, 60],
    [3, 90],
    [4, 120],
    [60, 120],
    [1440, 120],
  ])('gives a schedule every %i minutes a %i s timeout', (minutes, seconds) => {
    expect(pollerTimeout(minutes).toSeconds()).toBe(seconds);
  });
});
