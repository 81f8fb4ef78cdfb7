/**
 * The hosted status page in the synthesized stack (docs/status-page.md), for each `statusPage` value: the
 * bucket (public access blocked, encrypted, TLS only), the distribution (origin access control, HTTPS only,
 * default root object, security headers), the key group (private only, its key made at deploy, no private key
 * in the template), the publisher's role (its exact statements) and schedule, the outputs; off: none of it.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PUBLISHER_LEADING_KEYS } from '../../../lib/constructs/status-page-publisher.ts';
import { ContextError, parseMonitorContext } from '../../../lib/context.ts';
import { synthMonitor, TEST_API_URL } from '../synth.ts';

/** A template fragment, read as the tests go. */
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON of any shape, asserted field by field
type Json = any;

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

function resources(template: Template): Resources {
  return template.toJSON()['Resources'] as Resources;
}

function onlyOf(template: Template, type: string): [string, Record<string, unknown>] {
  const found = Object.entries(template.findResources(type));
  expect(found, type).toHaveLength(1);
  return [found[0]![0], found[0]![1]['Properties'] as Record<string, unknown>];
}

/** The statements of the policies attached to the role whose logical id starts with `prefix`. */
function roleStatements(template: Template, prefix: string): Record<string, unknown>[] {
  return Object.values(resources(template))
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) =>
      (r.Properties!['Roles'] as Array<{ Ref: string }>).some((ref) => ref.Ref.startsWith(prefix)),
    )
    .flatMap((r) => (r.Properties!['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement);
}

const STATUS_PAGE_TYPES = [
  'AWS::S3::Bucket',
  'AWS::CloudFront::Distribution',
  'AWS::CloudFront::OriginAccessControl',
  'AWS::CloudFront::KeyGroup',
  'AWS::CloudFront::PublicKey',
  'AWS::CloudFront::ResponseHeadersPolicy',
  'Custom::StatusPageSigningKey',
];

describe('statusPage off (the default)', () => {
  it('adds nothing of the page: no bucket, distribution, publisher, schedule or output', () => {
    // Act
    const template = synthMonitor({ networks: 'a,b' });

    // Assess
    const types = Object.values(resources(template)).map((r) => r.Type);
    expect(types.filter((t) => STATUS_PAGE_TYPES.includes(t))).toEqual([]);
    const ofThePage = (type: string) =>
      Object.values(template.findResources(type)).filter((r) =>
        /status page/i.test(String(r['Properties'].Description)),
      );
    expect(ofThePage('AWS::Lambda::Function')).toEqual([]);
    expect(ofThePage('AWS::Scheduler::Schedule')).toEqual([]);
    expect(ofThePage('AWS::IAM::Role')).toEqual([]);
    expect(Object.keys(template.toJSON()['Outputs'])).not.toContain('StatusPageUrl');
  });
});

describe.each(['private', 'public'] as const)('statusPage=%s', (mode) => {
  const template = synthMonitor({ networks: 'edge-1,edge-2', statusPage: mode, expectedStatus: 'active' });

  it('has a private bucket: public access blocked, encrypted, TLS only, kept by cdk destroy', () => {
    // Act
    const [id, bucket] = onlyOf(template, 'AWS::S3::Bucket');

    // Assess
    expect(bucket['PublicAccessBlockConfiguration']).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket['BucketEncryption']).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket['OwnershipControls']).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
    const [, policy] = onlyOf(template, 'AWS::S3::BucketPolicy');
    const statements = (policy['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    // The only Allow: CloudFront's service principal, for this distribution, reading objects.
    const allows = statements.filter((s) => s['Effect'] === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Action: 's3:GetObject',
      Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
    });
    expect(JSON.stringify(allows[0]!['Resource'])).toContain(id);
  });

  it('serves it through CloudFront with origin access control, HTTPS only, index.html, security headers', () => {
    // Act
    const [, distribution] = onlyOf(template, 'AWS::CloudFront::Distribution');
    const [oacId, oac] = onlyOf(template, 'AWS::CloudFront::OriginAccessControl');
    const [headersId, headers] = onlyOf(template, 'AWS::CloudFront::ResponseHeadersPolicy');

    // Assess
    const config = distribution['DistributionConfig'] as Record<string, Json>;
    expect(config['DefaultRootObject']).toBe('index.html');
    expect(config['Origins']).toHaveLength(1);
    expect(config['Origins'][0]['OriginAccessControlId']).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(config['Origins'][0]['S3OriginConfig']).toEqual({ OriginAccessIdentity: '' });
    expect(oac['OriginAccessControlConfig']).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const behavior = config['DefaultCacheBehavior'];
    expect(behavior['ViewerProtocolPolicy']).toBe('https-only');
    expect(behavior['AllowedMethods']).toEqual(['GET', 'HEAD']);
    expect(behavior['ResponseHeadersPolicyId']).toEqual({ Ref: headersId });
    expect(config['CacheBehaviors']).toBeUndefined();
    const security = (headers['ResponseHeadersPolicyConfig'] as Record<string, Json>)[
      'SecurityHeadersConfig'
    ];
    expect(security['StrictTransportSecurity']).toMatchObject({
      AccessControlMaxAgeSec: 31_536_000,
      Override: true,
    });
    expect(security['ReferrerPolicy']).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
    expect(security['FrameOptions']).toEqual({ FrameOption: 'DENY', Override: true });
    expect(security['ContentTypeOptions']).toEqual({ Override: true });
    expect(security['ContentSecurityPolicy']['ContentSecurityPolicy']).toMatch(/^default-src 'none';/);
  });

  it(
    mode === 'private'
      ? 'needs signed URLs: a key group of the key made at deploy, whose private half is in a secret only'
      : "needs no signature: no key group or signing key; the public ids' key generated at deploy, read by the publisher only",
    () => {
      // Act
      const [, distribution] = onlyOf(template, 'AWS::CloudFront::Distribution');
      const behavior = (distribution['DistributionConfig'] as Record<string, Json>)['DefaultCacheBehavior'];
      const text = JSON.stringify(template.toJSON());

      // Assess
      expect(text).not.toMatch(/PRIVATE KEY|BEGIN RSA|BEGIN PUBLIC/);
      if (mode === 'public') {
        expect(behavior['TrustedKeyGroups']).toBeUndefined();
        template.resourceCountIs('AWS::CloudFront::KeyGroup', 0);
        template.resourceCountIs('AWS::CloudFront::PublicKey', 0);
        template.resourceCountIs('Custom::StatusPageSigningKey', 0);
        const ids = Object.entries(template.findResources('AWS::SecretsManager::Secret')).filter(([id]) =>
          id.startsWith('StatusPage'),
        );
        expect(ids.map(([id]) => id)).toEqual([expect.stringMatching(/^StatusPagePublisherPublicIdKey/)]);
        const [idKey, secret] = ids[0]!;
        expect(secret['Properties'].GenerateSecretString).toMatchObject({ PasswordLength: 64 });
        expect(secret['Properties'].SecretString).toBeUndefined();
        const readers = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([, policy]) =>
          JSON.stringify(policy['Properties'].PolicyDocument).includes(`"Ref":"${idKey}"`),
        );
        expect(readers.map(([id]) => id)).toEqual([expect.stringMatching(/^StatusPagePublisherRole/)]);
        const publisher = Object.values(template.findResources('AWS::Lambda::Function')).find(
          (fn) => fn['Properties'].Environment?.Variables?.STATUS_PAGE_MODE === 'public',
        );
        expect(publisher!['Properties'].Environment.Variables.STATUS_PAGE_ID_SECRET).toEqual({ Ref: idKey });
        return;
      }
      const [groupId, group] = onlyOf(template, 'AWS::CloudFront::KeyGroup');
      const [keyId, key] = onlyOf(template, 'AWS::CloudFront::PublicKey');
      const [pairId, pair] = onlyOf(template, 'Custom::StatusPageSigningKey');
      expect(behavior['TrustedKeyGroups']).toEqual([{ Ref: groupId }]);
      expect((group['KeyGroupConfig'] as Record<string, unknown>)['Items']).toEqual([{ Ref: keyId }]);
      // The public key comes from the custom resource at deploy; the template holds no key at all.
      expect((key['PublicKeyConfig'] as Record<string, unknown>)['EncodedKey']).toEqual({
        'Fn::GetAtt': [pairId, 'PublicKeyPem'],
      });
      const secretIds = Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) =>
        id.startsWith('StatusPage'),
      );
      expect(secretIds).toHaveLength(1);
      expect(Object.keys(pair).sort()).toEqual(['SecretId', 'ServiceToken']);
      expect(pair['SecretId']).toEqual({ Ref: secretIds[0] });
      // The key function may read and write that secret, nothing else of Secrets Manager.
      const keyStatements = roleStatements(template, 'StatusPageSigningKeyRole').filter((s) =>
        String(s['Action']).startsWith('secretsmanager'),
      );
      expect(keyStatements).toEqual([
        {
          Effect: 'Allow',
          Action: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
          Resource: { Ref: secretIds[0] },
        },
      ]);
      // No function's environment holds a key or names the key's secret.
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
        const environment = JSON.stringify(fn['Properties'].Environment ?? {});
        expect(environment).not.toMatch(/PEM|PRIVATE KEY/);
        expect(environment).not.toContain(secretIds[0]);
      }
      const outputs = template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
      expect(outputs['StatusPageKeyId']!.Value).toEqual({ Ref: keyId });
      expect(outputs['StatusPageKeySecret']!.Value).toEqual({ Ref: secretIds[0] });
    },
  );

  it("gives the publisher a role of its own: Query on the snapshots, events, state items, members and silences (never outbox), PutObject on the page's objects and feed.atom", () => {
    // Act
    const statements = roleStatements(template, 'StatusPagePublisherRole');
    const [tableId] = onlyOf(template, 'AWS::DynamoDB::Table');
    const [bucketId] = onlyOf(template, 'AWS::S3::Bucket');
    const object = (key: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${key}`]] });

    // Assess: logs of its own group, then exactly these
    const others = statements.filter((s) => !String(s['Action']).startsWith('logs:'));
    expect(others).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [
              'filter',
              'event',
              'network#*',
              'state',
              'incident-members',
              'incident-archive',
              'silence',
            ],
          },
        },
      },
      {
        Effect: 'Allow',
        Action: 's3:PutObject',
        Resource:
          mode === 'private'
            ? ['feed.atom', 'index.html', 'report-24h.html', 'report-7d.html', 'status.json'].map(object)
            : ['feed.atom', 'index.html', 'status.json'].map(object),
      },
      ...(mode === 'public'
        ? [
            {
              Effect: 'Allow',
              Action: 'secretsmanager:GetSecretValue',
              Resource: { Ref: expect.stringMatching(/^StatusPagePublisherPublicIdKey/) },
            },
            {
              Effect: 'Allow',
              Action: 's3:DeleteObject',
              Resource: ['report-24h.html', 'report-7d.html'].map(object),
            },
          ]
        : []),
    ]);
    expect(PUBLISHER_LEADING_KEYS).not.toContain('outbox');
    // The poller's role has nothing of the bucket.
    expect(JSON.stringify(roleStatements(template, 'PollerRole'))).not.toContain(bucketId);
  });

  it('runs the publisher, its own function and bundle, on a schedule of its own every 5 minutes', () => {
    // Act
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('status page every') },
    });
    const schedules = template.findResources('AWS::Scheduler::Schedule', {
      Properties: { ScheduleExpression: 'rate(5 minutes)' },
    });

    // Assess
    expect(Object.keys(functions)).toHaveLength(1);
    const [fnId, fn] = Object.entries(functions)[0]!;
    expect(fn['Properties']).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 290,
      Environment: {
        Variables: {
          SHIELDWATCH_TABLE: expect.anything(),
          SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
          SHIELDWATCH_EXPECTED_STATUS: 'active',
          STATUS_PAGE_MODE: mode,
          STATUS_PAGE_EVERY_SECONDS: '300',
          STATUS_PAGE_BUCKET: expect.anything(),
          ...(mode === 'public' ? { STATUS_PAGE_ID_SECRET: expect.anything() } : {}),
          // The page's own address, from the distribution (the public feed's absolute links).
          STATUS_PAGE_URL: {
            'Fn::Join': [
              '',
              ['https://', { 'Fn::GetAtt': [expect.stringMatching(/Distribution/), 'DomainName'] }, '/'],
            ],
          },
        },
      },
    });
    expect(Object.keys(schedules)).toHaveLength(1);
    const target = Object.values(schedules)[0]!['Properties'].Target;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [fnId, 'Arn'] });
    expect(target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 300, MaximumRetryAttempts: 0 });
  });

  it('outputs StatusPageUrl, the https URL of the distribution', () => {
    // Act
    const outputs = template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
    const [distributionId] = onlyOf(template, 'AWS::CloudFront::Distribution');

    // Assess
    expect(outputs['StatusPageUrl']!.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
    });
    expect('StatusPageKeyId' in outputs).toBe(mode === 'private');
  });
});

describe('the publisher and the maintenance windows declared in context', () => {
  it('gives the publisher the windows the poller gets, so the page shows their occurrences', () => {
    // Prepare
    const window = {
      start: '02:00',
      for: '2h',
      repeat: 'FREQ=WEEKLY;BYDAY=SU',
      tz: 'Europe/Berlin',
      reason: 'weekly',
    };

    // Act
    const template = synthMonitor({
      networks: 'a',
      statusPage: 'private',
      maintenance: JSON.stringify([window]),
    });

    // Assess
    const variables = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (fn) => (fn['Properties'].Environment?.Variables ?? {}) as Record<string, unknown>,
    );
    const publisher = variables.find((v) => v['STATUS_PAGE_MODE'] === 'private')!;
    const poller = variables.find((v) => v['SHIELDWATCH_API_URL'] !== undefined)!;
    expect(publisher['SHIELDWATCH_MAINTENANCE']).toBeDefined();
    expect(publisher['SHIELDWATCH_MAINTENANCE']).toEqual(poller['SHIELDWATCH_MAINTENANCE']);
  });
});

describe('the statusPage context', () => {
  const problems = (values: Record<string, unknown>) => {
    try {
      parseMonitorContext({ apiUrl: TEST_API_URL, ...values });
      return [];
    } catch (error) {
      if (error instanceof ContextError) return error.problems;
      throw error;
    }
  };

  it.each([
    [{}, undefined],
    [{ statusPage: 'off' }, undefined],
    [{ statusPage: 'private' }, { mode: 'private', everyMinutes: 5 }],
    [
      { statusPage: 'Public', statusPageEvery: '1h' },
      { mode: 'public', everyMinutes: 60 },
    ],
    [
      { statusPage: 'private', statusPageEvery: '1m' },
      { mode: 'private', everyMinutes: 1 },
    ],
  ])('%o gives %o', (values, expected) => {
    expect(parseMonitorContext({ apiUrl: TEST_API_URL, ...values }).statusPage).toEqual(expected);
  });

  it.each([
    [{ statusPage: 'yes' }, /^statusPage: expected off, private or public, got "yes"$/],
    [{ statusPage: 'private', statusPageEvery: '30s' }, /^statusPageEvery: expected a duration/],
    [{ statusPage: 'private', statusPageEvery: '2h' }, /from 1m to 60m, got "2h"$/],
    [{ statusPage: 'private', statusPageEvery: 'soon' }, /^statusPageEvery: /],
    [{ statusPageEvery: '10m' }, /^statusPageEvery: needs statusPage/],
    [{ statusPages: 'private' }, /^statusPages: unknown context key; did you mean statusPage\?$/],
  ])('%o is refused, naming the key', (values, message) => {
    expect(problems(values)).toEqual([expect.stringMatching(message)]);
  });

  it('is rewritten at the interval asked for, and the function ends before the next run', () => {
    // Act
    const template = synthMonitor({ statusPage: 'public', statusPageEvery: '1m' });

    // Assess
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(1 minute)' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('status page every 1 min'),
      Timeout: 50,
    });
  });
});
