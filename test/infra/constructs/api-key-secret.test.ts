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
        'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-key',
      );
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
