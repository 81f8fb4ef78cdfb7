/**
 * The stack side of the settings catalogue (lambda/settings.ts): the function's environment is built from
 * it, and the context check and the env loader agree where they used to differ (repeated network ids, a
 * secret given by ARN).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lambda/config.ts';
import { SETTING_ENV_NAMES, settingsEnvironment } from '../../lambda/settings.ts';
import { ContextError, parseMonitorContext } from '../../lib/context.ts';
import { buildMonitor, projectRoot, renderCfn, resourceIdStartingWith, synthMonitor } from './synth.ts';

const base = { apiUrl: 'https://api.example.com' };
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shieldwatch/api-key-AbC123';
const KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

function contextProblems(values: Record<string, unknown>): readonly string[] {
  try {
    parseMonitorContext({ ...base, ...values });
    return [];
  } catch (error) {
    if (error instanceof ContextError) return error.problems;
    throw error;
  }
}

function loaderProblems(env: Record<string, string>): readonly string[] {
  try {
    loadConfig({ SHIELDWATCH_API_URL: 'https://api.example.com', SHIELDWATCH_API_KEY: 'test-key', ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

/** The poller's environment (the acknowledge function, docs/acknowledge.md, has an environment of its own). */
function functionEnvironment(template: Template): Record<string, unknown> {
  const fn =
    template.findResources('AWS::Lambda::Function')[
      resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Poller')
    ]!;
  return fn['Properties'].Environment.Variables as Record<string, unknown>;
}

/** Every IAM statement of the template's policies. */
function statements(template: Template): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (p) => p['Properties'].PolicyDocument.Statement as Record<string, unknown>[],
  );
}

/** The TypeScript files under a folder of the project, recursively. */
function sources(folder: string): string[] {
  return readdirSync(`${projectRoot}${folder}`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${folder}/${file}`);
}

describe("the function's environment", () => {
  it('is built from the catalogue: no variable name is written in lib/ outside comments', () => {
    // Act
    const named = sources('lib').filter((file) =>
      /SHIELDWATCH_[A-Z]/.test(
        readFileSync(`${projectRoot}${file}`, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, ''),
      ),
    );

    // Assess
    expect(named).toEqual([]);
  });

  it('holds only catalogue variables besides the Powertools settings', () => {
    // Act
    const names = Object.keys(functionEnvironment(synthMonitor({ networks: 'a,b', expectedStatus: 'on' })));

    // Assess
    expect(names.filter((name) => !name.startsWith('POWERTOOLS_'))).toEqual(
      SETTING_ENV_NAMES.filter((name) => names.includes(name)),
    );
    expect(names).toEqual(expect.arrayContaining(['SHIELDWATCH_NETWORKS', 'SHIELDWATCH_EXPECTED_STATUS']));
  });

  it.each([
    [
      { networks: ['a', 'b'], retentionDays: 30, statusPath: undefined },
      { SHIELDWATCH_NETWORKS: 'a,b', SHIELDWATCH_RETENTION_DAYS: '30' },
    ],
    [
      { networks: [], timeoutMs: 2500 },
      { SHIELDWATCH_NETWORKS: '', SHIELDWATCH_TIMEOUT_MS: '2500' },
    ],
    [{}, {}],
  ])('settingsEnvironment(%j) is %j', (values, expected) => {
    expect(settingsEnvironment(values)).toEqual(expected);
  });
});

describe('repeated network ids: refused by both, the repeat named', () => {
  it.each([
    ['a,b,a', '"a"'],
    ['net-1, net-2 ,net-1,net-2', '"net-1", "net-2"'],
  ])('%s', (networks, named) => {
    // Act
    const context = contextProblems({ networks });
    const loader = loaderProblems({ SHIELDWATCH_NETWORKS: networks });

    // Assess
    expect(context).toEqual([expect.stringMatching(/^networks: lists "a"|^networks: lists "net-1"/)]);
    expect(loader).toEqual([`SHIELDWATCH_NETWORKS lists ${named} more than once: list each network once`]);
  });

  it('accepts the same list without the repeat in both', () => {
    expect(contextProblems({ networks: 'a,b' })).toEqual([]);
    expect(loaderProblems({ SHIELDWATCH_NETWORKS: 'a,b' })).toEqual([]);
  });
});

describe('the secret: a name or a complete ARN, at synth as in the loader', () => {
  it.each([
    'shieldwatch/api-key',
    SECRET_ARN,
    'arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:key-AbCdEf',
  ])('accepts %s in both', (secret) => {
    expect(contextProblems({ apiKeySecretName: secret })).toEqual([]);
    expect(loaderProblems({ SHIELDWATCH_API_KEY: '', SHIELDWATCH_API_KEY_SECRET: secret })).toEqual([]);
  });

  it.each([
    ['a partial ARN (no suffix: no exact grant)', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:key'],
    ['an ARN of another service', 'arn:aws:ssm:eu-west-1:123456789012:parameter/key'],
    ['an ARN without an account', 'arn:aws:secretsmanager:eu-west-1::secret:key-AbCdEf'],
  ])(
    'refuses %s at synth, naming apiKeySecretName, and in the loader, naming the variable',
    (_name, secret) => {
      expect(contextProblems({ apiKeySecretName: secret })).toEqual([
        expect.stringMatching(/^apiKeySecretName: expected the secret name .* or its complete ARN/),
      ]);
      // A partial ARN is ambiguous: Secrets Manager may read its last hyphen and six characters as the suffix.
      expect(loaderProblems({ SHIELDWATCH_API_KEY: '', SHIELDWATCH_API_KEY_SECRET: secret })).toEqual([
        expect.stringMatching(/^SHIELDWATCH_API_KEY_SECRET: expected the secret name .* or its complete ARN/),
      ]);
    },
  );

  it('refers to a secret given by ARN by that ARN: environment, grant and output', () => {
    // Act
    const template = synthMonitor({ apiKeySecretName: SECRET_ARN });

    // Assess
    // The one secret the stack makes is the acknowledge links' signing key (docs/acknowledge.md), read by its
    // own reference; of any other secret, only the ARN given is read.
    const signingKey = resourceIdStartingWith(template, 'AWS::SecretsManager::Secret', 'AckSigningKey');
    expect(Object.keys(template.findResources('AWS::SecretsManager::Secret'))).toEqual([signingKey]);
    expect(functionEnvironment(template)['SHIELDWATCH_API_KEY_SECRET']).toBe(SECRET_ARN);
    const reads = statements(template).filter((s) =>
      [s['Action']].flat().includes('secretsmanager:GetSecretValue'),
    );
    expect(
      reads.map((s) => s['Resource']).filter((resource) => renderCfn(resource) !== `<${signingKey}>`),
    ).toEqual([SECRET_ARN]);
    template.hasOutput('SecretName', { Value: 'shieldwatch/api-key' });
  });
});

describe('apiKeySecretKmsKeyArn', () => {
  it('lets the function decrypt with that key through Secrets Manager in its region only', () => {
    // Act
    const template = synthMonitor({
      apiKeySecretName: 'shieldwatch/api-key',
      apiKeySecretKmsKeyArn: KMS_KEY_ARN,
    });

    // Assess
    const decrypts = statements(template).filter((s) => [s['Action']].flat().includes('kms:Decrypt'));
    const forKey = decrypts.filter((s) => s['Resource'] === KMS_KEY_ARN);
    expect(forKey).toHaveLength(1);
    expect(forKey[0]).toMatchObject({ Effect: 'Allow', Action: 'kms:Decrypt' });
    expect(
      renderCfn(
        (forKey[0]!['Condition'] as Record<string, Record<string, unknown>>)['StringEquals']![
          'kms:ViaService'
        ],
      ),
    ).toBe('secretsmanager.<AWS::Region>.amazonaws.com');
  });

  it('grants nothing on any key of the account without it', () => {
    const template = synthMonitor({ apiKeySecretName: 'shieldwatch/api-key' });
    expect(JSON.stringify(statements(template))).not.toContain(':kms:');
  });

  it.each([
    [{ apiKeySecretKmsKeyArn: KMS_KEY_ARN }, /^apiKeySecretKmsKeyArn: needs apiKeySecretName/],
    [
      { apiKeySecretName: 'k', apiKeySecretKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:alias/mine' },
      /^apiKeySecretKmsKeyArn: expected the ARN of a KMS key .*not of an alias/,
    ],
    [
      { apiKeySecretName: 'k', apiKeySecretKmsKeyArn: '1234abcd' },
      /^apiKeySecretKmsKeyArn: expected the ARN/,
    ],
  ])('refuses %j', (values, problem) => {
    expect(contextProblems(values)).toEqual([expect.stringMatching(problem)]);
  });
});

describe('synth warnings', () => {
  /** The warnings of a stack with one subscriber (unless `context` says otherwise). */
  function warnings(context: Record<string, unknown>) {
    return Annotations.fromStack(buildMonitor({ alertEmail: 'ops@example.com', ...context })).findWarning(
      '*',
      Match.anyValue(),
    );
  }

  it('warns that no one will be told when the stack has no subscriber at all', () => {
    // Act
    const found = Annotations.fromStack(buildMonitor({})).findWarning('*', Match.anyValue());

    // Assess
    expect(found.map((w) => [w.id, String(w.entry.data)])).toEqual([
      [
        '/Shieldwatch',
        expect.stringMatching(
          /^no one will be told: no alertEmail, alertSms, Slack, Teams, pagerDutyRoutingKeySecret or webhookUrlSecret is set.* \[ack: shieldwatch:subscribers\]$/,
        ),
      ],
    ]);
  });

  it.each([
    { alertEmail: 'ops@example.com' },
    { alertSms: '+14155550100' },
    { slackWorkspaceId: 'T07EZ1ABC23', slackChannelId: 'C07EZ1ABC23' },
    {
      teamsTenantId: '11111111-2222-3333-4444-555555555555',
      teamsTeamId: '11111111-2222-3333-4444-666666666666',
      teamsChannelId: '19%3aabc%40thread.tacv2',
    },
    { pagerDutyRoutingKeySecret: 'shieldwatch/pagerduty' },
    { webhookUrlSecret: 'shieldwatch/webhook' },
  ])('says nothing about subscribers with %j', (context) => {
    // Act
    const found = Annotations.fromStack(buildMonitor(context)).findWarning('*', Match.anyValue());

    // Assess
    expect(found).toEqual([]);
  });

  it('warns when reservedConcurrency is set, with the account check it needs', () => {
    // Act
    const found = warnings({ reservedConcurrency: 2 });

    // Assess
    expect(found.map((w) => String(w.entry.data))).toEqual([
      expect.stringMatching(
        /reservedConcurrency 2 .*UnreservedConcurrentExecutions stays at least 100 .*aws lambda get-account-settings/,
      ),
    ]);
  });

  it('warns when expectedStatus has whitespace around it, which is compared too', () => {
    const found = warnings({ expectedStatus: ' Active ' });
    expect(found.map((w) => String(w.entry.data))).toEqual([
      expect.stringMatching(/expectedStatus " Active " has whitespace around it, which is compared too/),
    ]);
  });

  it('says nothing for the defaults and a plain expected status', () => {
    expect(warnings({ expectedStatus: 'Active' })).toEqual([]);
  });
});
