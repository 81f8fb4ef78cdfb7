import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnSecret, type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** Properties of {@link ApiKeySecret}. */
export interface ApiKeySecretProps {
  /**
   * An existing secret that holds the key (the string itself, or JSON `{"apiKey": "..."}`): its name, or its
   * complete ARN (`arn:...:secret:NAME-AbCdEf`).
   * @default - a new, empty secret for the user to fill with `shieldwatch set-key`
   */
  readonly existingSecret?: string;
  /**
   * ARN of the customer-managed KMS key that encrypts the existing secret: readers get `kms:Decrypt` on it,
   * through Secrets Manager only.
   * @default - the secret is under the AWS-managed key `aws/secretsmanager`, which needs no grant
   */
  readonly kmsKeyArn?: string;
}

/**
 * The secret holding the protection API's key. The stack never sees the key: it either refers to an
 * existing secret (by name or complete ARN) or creates an empty one (no value, not even a generated
 * placeholder).
 */
export class ApiKeySecret extends Construct {
  readonly secret: ISecret;
  /**
   * What the function passes to `GetSecretValue`: the name when the secret was given by name, else its ARN.
   * Never the partial ARN CDK builds from a name: Secrets Manager takes a partial ARN whose name ends in a
   * hyphen and six characters (`shieldwatch/api-secret`) for the complete ARN of another name
   * (`shieldwatch/api`), and the function would find no secret.
   */
  readonly secretId: string;
  /** True when the stack created the secret (and the user still has to put the key into it). */
  readonly created: boolean;
  private readonly kmsKeyArn: string | undefined;

  constructor(scope: Construct, id: string, props: ApiKeySecretProps = {}) {
    super(scope, id);
    this.kmsKeyArn = props.kmsKeyArn;
    this.created = props.existingSecret === undefined;
    if (props.existingSecret !== undefined) {
      this.secret = props.existingSecret.startsWith('arn:')
        ? Secret.fromSecretCompleteArn(this, 'Secret', props.existingSecret)
        : Secret.fromSecretNameV2(this, 'Secret', props.existingSecret);
      this.secretId = props.existingSecret;
      return;
    }
    const secret = new Secret(this, 'Secret', {
      description: 'shieldwatch: the protection API key (SecretString: the key, or {"apiKey": "..."})',
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Without a value the secret is created empty; CDK would otherwise generate a random placeholder.
    (secret.node.defaultChild as CfnSecret).addPropertyDeletionOverride('GenerateSecretString');
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key is issued by the third-party protection service, which offers no API a rotation Lambda ' +
        'could call; it is rotated at the provider and written with shieldwatch set-key (README).',
    });
    this.secret = secret;
    // Its `Ref` is the complete ARN, suffix included.
    this.secretId = secret.secretArn;
  }

  /** Lets `grantee` read the key: the secret, and its customer-managed key through Secrets Manager only. */
  grantRead(grantee: IGrantable): void {
    this.secret.grantRead(grantee);
    if (this.kmsKeyArn === undefined) return;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DecryptTheApiKeySecretThroughSecretsManager',
        actions: ['kms:Decrypt'],
        resources: [this.kmsKeyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` },
        },
      }),
    );
  }
}
