import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type CfnSecret, type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** Properties of {@link ApiKeySecret}. */
export interface ApiKeySecretProps {
  /**
   * Name of an existing secret that holds the key (the string itself, or JSON `{"apiKey": "..."}`).
   * @default - a new, empty secret for the user to fill with `aws secretsmanager put-secret-value`
   */
  readonly existingSecretName?: string;
}

/**
 * The secret holding the protection API's key. The stack never sees the key: it either refers to an
 * existing secret by name or creates an empty one (no value, not even a generated placeholder).
 */
export class ApiKeySecret extends Construct {
  readonly secret: ISecret;
  /** True when the stack created the secret (and the user still has to put the key into it). */
  readonly created: boolean;

  constructor(scope: Construct, id: string, props: ApiKeySecretProps = {}) {
    super(scope, id);
    this.created = props.existingSecretName === undefined;
    if (props.existingSecretName !== undefined) {
      this.secret = Secret.fromSecretNameV2(this, 'Secret', props.existingSecretName);
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
        'could call; it is rotated at the provider and written with put-secret-value (README).',
    });
    this.secret = secret;
  }
}
