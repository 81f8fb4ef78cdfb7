import { fileURLToPath } from 'node:url';
import { CustomResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { KeyGroup, PublicKey } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { bundledFunction, functionLogsAndRole } from './function-defaults.ts';

/** The custom resource's Lambda entry: makes the key pair, keeps the private half in the secret. */
export const SIGNING_KEY_ENTRY = fileURLToPath(
  new URL('../../lambda/status-page-key-handler.ts', import.meta.url),
);

/**
 * The key that signs the private status page's URLs, made at deploy with no key for anyone to make or supply:
 * a custom resource (its own small function) generates an RSA key pair, writes the private half into
 * {@link secret} and returns the public half only, which becomes CloudFront's {@link publicKey} in
 * {@link keyGroup}. `shieldwatch page-link` reads the secret to sign a link.
 */
export class StatusPageSigningKey extends Construct {
  /** Holds the private key (PEM); nothing else ever does. */
  readonly secret: Secret;
  readonly publicKey: PublicKey;
  readonly keyGroup: KeyGroup;
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Generated placeholder until the custom resource writes the key; the template never holds a value.
    this.secret = new Secret(this, 'Secret', {
      description: 'shieldwatch status page: the private key that signs its CloudFront URLs (made at deploy)',
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating this key needs a new CloudFront public key in the key group at the same time; turning the ' +
        'page public and private again makes a new pair (docs/status-page.md). A rotation Lambda would only ' +
        'break every link without it.',
    });

    const { logGroup, role } = functionLogsAndRole(
      this,
      'shieldwatch status page key: its log group and the key secret',
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
        resources: [this.secret.secretArn],
      }),
    );
    this.function = new NodejsFunction(this, 'Function', {
      ...bundledFunction(SIGNING_KEY_ENTRY, { keepNames: false }),
      memorySize: 256,
      timeout: Duration.seconds(60),
      role,
      logGroup,
      description: 'shieldwatch status page: makes the URL signing key pair at deploy',
    });
    const pair = new CustomResource(this, 'KeyPair', {
      serviceToken: this.function.functionArn,
      resourceType: 'Custom::StatusPageSigningKey',
      properties: { SecretId: this.secret.secretArn },
    });
    // The function and its rights must exist before CloudFormation calls it, and outlive the delete.
    pair.node.addDependency(role);
    this.publicKey = new PublicKey(this, 'PublicKey', {
      encodedKey: pair.getAttString('PublicKeyPem'),
      comment: 'shieldwatch status page: signed URLs (shieldwatch page-link)',
    });
    this.keyGroup = new KeyGroup(this, 'KeyGroup', {
      items: [this.publicKey],
      comment: 'shieldwatch status page: the keys that sign its URLs',
    });
  }
}
