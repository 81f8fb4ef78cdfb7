import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { buildMonitor, channelsContext } from './synth.ts';

/** Every acknowledgement in the tree: rule id, construct path, reason. */
function acknowledgements(root: IConstruct): Array<{ id: string; path: string; reason: string }> {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          id: id.replace(/^annotation::/i, ''),
          path: construct.node.path,
          reason,
        })),
      ),
  );
}

describe.each([
  [
    'a new secret and every option',
    {
      networks: 'a,b',
      alertEmail: 'ops@example.com',
      alertSms: '+14155550100',
      statusPath: 'x.y',
      expectedStatus: 'active',
      remindEvery: '1h',
      confirmations: 2,
      alertAfter: 5,
      concurrency: 20,
      requestTimeoutMs: 3000,
    },
  ],
  [
    'an existing secret by ARN under a customer-managed key',
    {
      apiKeySecretName: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shieldwatch/api-key-AbC123',
      apiKeySecretKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      schedule: 'rate(5 minutes)',
      reservedConcurrency: 1,
    },
  ],
  ['shards', { networks: 'a,b,c,d,e', shardSize: 2, reservedConcurrency: 3 }],
  [
    'every alert channel (Slack, Teams, PagerDuty, webhook)',
    { ...channelsContext, expectedStatus: 'active' },
  ],
  ['a private status page', { networks: 'a,b', statusPage: 'private', statusPageEvery: '10m' }],
  ['a public status page', { statusPage: 'public' }],
  [
    'a daily digest linking a private status page',
    { statusPage: 'private', digest: 'daily', digestAt: '07:30', digestTz: 'Europe/Berlin' },
  ],
])('cdk-nag AwsSolutions on the stack with %s', (_name, context) => {
  const stack = buildMonitor(context);

  it('has zero unacknowledged findings', () => {
    // Act
    const report = new AwsSolutionsChecks().validateScope(stack);

    // Assess
    expect(
      report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath)}`),
    ).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges only the reviewed rules, each with its reason', () => {
    // Act
    const acks = acknowledgements(stack);

    // Assess
    const expected = [
      'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<PollerFunction\w+\.Arn>:\*\]$/),
      // The schedule's and the subscriptions' dead-letter queues.
      'AwsSolutions-SQS3',
      'AwsSolutions-SQS3',
      // An existing secret is not the stack's to rotate.
      ...('apiKeySecretName' in context ? [] : ['AwsSolutions-SMG4']),
      // The acknowledge links' signing key rotates by hand, both versions verified (docs/acknowledge.md).
      'AwsSolutions-SMG4',
      // The status page (docs/status-page.md): its bucket's access logs, the distribution's geo, WAF,
      // logging and default certificate, the publisher schedule's invoke; private: the signing key's rotation;
      // public: the public incident ids' key's rotation.
      ...('statusPage' in context
        ? [
            'AwsSolutions-S1',
            'AwsSolutions-CFR1',
            'AwsSolutions-CFR2',
            'AwsSolutions-CFR3',
            'AwsSolutions-CFR4',
            expect.stringMatching(
              /^AwsSolutions-IAM5\[Resource::<StatusPagePublisherFunction\w+\.Arn>:\*\]$/,
            ),
            'AwsSolutions-SMG4',
          ]
        : []),
      // The digest (docs/digest.md): publishing to the encrypted topic, the schedule's invoke.
      ...('digest' in context
        ? [
            'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
            expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<DigestFunction\w+\.Arn>:\*\]$/),
          ]
        : []),
    ];
    expect(acks.map((a) => a.id)).toEqual(expect.arrayContaining(expected));
    expect(acks).toHaveLength(expected.length);
    for (const ack of acks) expect(ack.reason.length).toBeGreaterThan(40);
  });

  it('would report the acknowledged rules without their acknowledgements (none is stale)', () => {
    // Prepare: a pack that sees no acknowledgement (isAcknowledged is private to NagPack)
    const ids = new Set(acknowledgements(stack).map((a) => a.id));
    const blind = new AwsSolutionsChecks();
    Object.assign(blind, { isAcknowledged: () => false });

    // Act
    const report = blind.validateScope(stack);

    // Assess
    expect(new Set(report.violations.map((v) => v.ruleName))).toEqual(ids);
  });
});
