import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  existingSecretContext,
  fullContext,
  policyStatements,
  renderCfn,
  resourceIdStartingWith,
  synthMonitor,
} from '../synth.ts';

/** The poller's function (the stack has the acknowledge function too: docs/acknowledge.md). */
function pollerFunction(template: Template) {
  return template.findResources('AWS::Lambda::Function')[
    resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Poller')
  ]!;
}

/**
 * The secrets any role may read, rendered, but the acknowledge links' signing key: a secret of the stack's own,
 * generated at deploy, that the poller and the acknowledge function read (docs/acknowledge.md).
 */
function apiKeyReads(template: Template): string[] {
  const signingKey = `<${resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'AckSigningKey')}>`;
  return policyStatements(template)
    .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))
    .map((s) => renderCfn(s.Resource))
    .filter((resource) => resource !== signingKey);
}

describe('ApiKeySecret', () => {
  describe('created by the stack', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor(fullContext);
    });

    it('creates an empty secret: no value, no generated placeholder', () => {
      // The API key's secret by its construct id: the acknowledge links' key is generated (docs/acknowledge.md).
      const id = resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'ApiKey');
      const properties = template.findResources('AWS::SecretsManager::Secret')[id]!['Properties'];
      expect(properties).not.toHaveProperty('SecretString');
      expect(properties).not.toHaveProperty('GenerateSecretString');
    });
  });

  describe('an existing secret, by name', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor(existingSecretContext);
    });

    it('refers to the secret by name and creates none', () => {
      // The only secret the stack makes is the acknowledge links' signing key: none for the API key.
      expect(Object.keys(template.findResources('AWS::SecretsManager::Secret'))).toEqual([
        resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'AckSigningKey'),
      ]);
      const fn = pollerFunction(template);
      expect(renderCfn(fn['Properties'].Environment.Variables.SHIELDWATCH_API_KEY_SECRET)).toBe(
        'shieldwatch/api-key',
      );
    });

    it('gives the function the name itself, never a partial ARN, so a name ending in -XXXXXX is found', () => {
      // Prepare: Secrets Manager reads a partial ARN of `shieldwatch/api-secret` as the complete ARN of a
      // secret named `shieldwatch/api` (CreateSecret: avoid names ending in a hyphen and six characters).
      const named = synthMonitor({ ...existingSecretContext, apiKeySecretName: 'shieldwatch/api-secret' });

      // Act
      const fn = pollerFunction(named);
      const reads = apiKeyReads(named);

      // Assess
      expect(fn['Properties'].Environment.Variables.SHIELDWATCH_API_KEY_SECRET).toBe(
        'shieldwatch/api-secret',
      );
      expect(reads).toEqual([
        'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-secret-??????',
      ]);
    });

    it('lets the function read that one secret (the ?????? is its random suffix)', () => {
      expect(apiKeyReads(template)).toEqual([
        'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:shieldwatch/api-key-??????',
      ]);
    });
  });
});
