import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { existingSecretContext, fullContext, policyStatements, renderCfn, synthMonitor } from '../synth.ts';

describe('ApiKeySecret', () => {
  describe('created by the stack', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor(fullContext);
    });

    it('creates an empty secret: no value, no generated placeholder', () => {
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        SecretString: Match.absent(),
        GenerateSecretString: Match.absent(),
      });
    });
  });

  describe('an existing secret, by name', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor(existingSecretContext);
    });

    it('refers to the secret by name and creates none', () => {
      template.resourceCountIs('AWS::SecretsManager::Secret', 0);
      const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
      expect(renderCfn(fn['Properties'].Environment.Variables.SHIELDWATCH_API_KEY_SECRET)).toBe(
        'shieldwatch/api-key',
      );
    });

    it('gives the function the name itself, never a partial ARN, so a name ending in -XXXXXX is found', () => {
      // Prepare: Secrets Manager reads a partial ARN of `shieldwatch/api-secret` as the complete ARN of a
      // secret named `shieldwatch/api` (CreateSecret: avoid names ending in a hyphen and six characters).
      const named = synthMonitor({ ...existingSecretContext, apiKeySecretName: 'shieldwatch/api-secret' });

      // Act
      const fn = Object.values(named.findResources('AWS::Lambda::Function'))[0]!;
      const secretStatements = policyStatements(named).filter((s) =>
        [s.Action].flat().includes('secretsmanager:GetSecretValue'),
      );

      // Assess
      expect(fn['Properties'].Environment.Variables.SHIELDWATCH_API_KEY_SECRET).toBe(
        'shieldwatch/api-secret',
      );
      expect(secretStatements.map((s) => renderCfn(s.Resource))).toEqual([
        'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-secret-??????',
      ]);
    });

    it('lets the function read that one secret (the ?????? is its random suffix)', () => {
      const secretStatements = policyStatements(template).filter((s) =>
        [s.Action].flat().includes('secretsmanager:GetSecretValue'),
      );
      expect(secretStatements.map((s) => renderCfn(s.Resource))).toEqual([
        'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-key-??????',
      ]);
    });
  });
});
