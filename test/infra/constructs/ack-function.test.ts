/** The acknowledge link's function, URL, role and signing secret (lib/constructs/ack-function.ts, docs/acknowledge.md). */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContextError } from '../../../lib/context.ts';
import { resourceIdStartingWith, synthMonitor } from '../synth.ts';

describe('AckFunction in the stack', () => {
  let template: Template;
  let ids: { fn: string; secret: string; role: string; logs: string; table: string; url: string };

  beforeAll(() => {
    template = synthMonitor({ networks: 'a,b', escalateAfter: '10m,30m' });
    ids = {
      fn: resourceIdStartingWith(template, 'AWS::Lambda::Function', 'AckFunction'),
      secret: resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'AckSigningKey'),
      role: resourceIdStartingWith(template, 'AWS::IAM::Role', 'AckRole'),
      logs: resourceIdStartingWith(template, 'AWS::Logs::LogGroup', 'AckLogs'),
      table: Object.keys(template.findResources('AWS::DynamoDB::Table'))[0]!,
      url: resourceIdStartingWith(template, 'AWS::Lambda::Url', 'Ack'),
    };
  });

  it('the signing key is generated at deploy: no value in the template', () => {
    const secret = template.findResources('AWS::SecretsManager::Secret')[ids.secret]!;
    expect(secret['Properties'].GenerateSecretString).toEqual({
      ExcludePunctuation: true,
      IncludeSpace: false,
      PasswordLength: 64,
    });
    expect(secret['Properties'].SecretString).toBeUndefined();
  });

  it('has a function URL without IAM auth and without CORS, output as AckUrl', () => {
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
      Cors: Match.absent(),
    });
    template.hasOutput('AckUrl', { Value: { 'Fn::GetAtt': [ids.url, 'FunctionUrl'] } });
  });

  it('caps its concurrency at 2, and off drops the reservation', () => {
    const fn = template.findResources('AWS::Lambda::Function')[ids.fn]!;
    expect(fn['Properties'].ReservedConcurrentExecutions).toBe(2);
    expect(fn['Properties'].Runtime).toBe('nodejs24.x');
    expect(fn['Properties'].Architectures).toEqual(['arm64']);
    const off = synthMonitor({ ackConcurrency: 'off' });
    const offFn =
      off.findResources('AWS::Lambda::Function')[
        resourceIdStartingWith(off, 'AWS::Lambda::Function', 'AckFunction')
      ]!;
    expect(offFn['Properties'].ReservedConcurrentExecutions).toBeUndefined();
    expect(() => synthMonitor({ ackConcurrency: 50 })).toThrow(ContextError);
  });

  it('its environment names the table and the secret ARN, never the key', () => {
    const fn = template.findResources('AWS::Lambda::Function')[ids.fn]!;
    expect(fn['Properties'].Environment.Variables).toEqual({
      SHIELDWATCH_TABLE: { Ref: ids.table },
      SHIELDWATCH_ACK_SECRET: { Ref: ids.secret },
      POWERTOOLS_SERVICE_NAME: 'shieldwatch-ack',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
  });

  it('its role holds exactly: its logs, get/update in the state partition, a Query of spilled alerts, its key', () => {
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
            Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
            Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
            Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['state'] } },
          },
          {
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
            // Spilled alerts, and the rule items that hold a rule's incident on one network (groupBy=none).
            Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['outbox', 'state'] } },
          },
          { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: ids.secret } },
        ],
      },
    });
    const role = template.findResources('AWS::IAM::Role')[ids.role]!;
    expect(role['Properties'].ManagedPolicyArns).toBeUndefined();
  });

  it('the poller gets the URL, the secret ARN and the escalation stages, never the key', () => {
    const poller =
      template.findResources('AWS::Lambda::Function')[
        resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Poller')
      ]!;
    const env = poller['Properties'].Environment.Variables;
    expect(env.SHIELDWATCH_ACK_URL).toEqual({ 'Fn::GetAtt': [ids.url, 'FunctionUrl'] });
    expect(env.SHIELDWATCH_ACK_SECRET).toEqual({ Ref: ids.secret });
    expect(env.SHIELDWATCH_ESCALATE_AFTER).toBe('10m,30m');
  });
});
