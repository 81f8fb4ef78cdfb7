/**
 * Clients of the emulator's service APIs for the deploy test: the project's own SDK clients where it has
 * them (CloudFormation, DynamoDB, SNS, Secrets Manager), and plain HTTP requests for the few other calls the
 * test makes (Lambda, S3, Scheduler, STS, IAM, KMS, SQS, CloudWatch, Logs, EventBridge, Pipes): moto reads
 * the service from the SigV4 credential scope and does not check signatures, so no other SDK is installed.
 *
 * {@link EXISTS} says, per resource type, how to find a deployed resource: a type of a new resource that the
 * stack gains must be added there (or to the fillers of moto_with_fillers.py), or the deploy test fails.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetSubscriptionAttributesCommand, GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { REGION } from './emulator.ts';
import type { PolicyDocument } from './iam-policy.ts';

/** A service's signing name. */
export type Service = string;

const credentials = { accessKeyId: 'deploytest', secretAccessKey: 'deploytest' };

/** One request to the emulator, signed in form only (moto dispatches on the credential scope). */
async function request(
  endpoint: string,
  service: Service,
  options: { method?: string; path?: string; target?: string; json?: unknown; form?: Record<string, string> },
): Promise<{ status: number; text: string; bytes: Buffer }> {
  const headers: Record<string, string> = {
    authorization: `AWS4-HMAC-SHA256 Credential=deploytest/20260101/${REGION}/${service}/aws4_request, SignedHeaders=host, Signature=0`,
  };
  let body: string | undefined;
  if (options.target !== undefined) {
    headers['x-amz-target'] = options.target;
    headers['content-type'] = 'application/x-amz-json-1.0';
    body = JSON.stringify(options.json ?? {});
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const answer = await fetch(`${endpoint}${options.path ?? '/'}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const bytes = Buffer.from(await answer.arrayBuffer());
  return { status: answer.status, text: bytes.toString('utf8'), bytes };
}

async function ok(
  endpoint: string,
  service: Service,
  options: Parameters<typeof request>[2],
): Promise<{ text: string; bytes: Buffer }> {
  const answer = await request(endpoint, service, options);
  if (answer.status >= 300) {
    throw new Error(
      `${service} ${options.target ?? options.form?.['Action'] ?? options.path}: ${answer.status} ${answer.text.slice(0, 500)}`,
    );
  }
  return answer;
}

/** The text of the first `<Name>` element of an XML answer (query protocol). */
function xmlValue(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return match?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function xmlValues(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!);
}

/** The clients of the emulator at `endpoint`. */
export function services(endpoint: string) {
  const sdk = { endpoint, region: REGION, credentials };
  const queryCall = (service: Service, form: Record<string, string>) => ok(endpoint, service, { form });
  return {
    cloudformation: new CloudFormationClient(sdk),
    dynamo: new DynamoDBClient(sdk),
    secrets: new SecretsManagerClient(sdk),
    sns: new SNSClient(sdk),
    lambda: {
      async getFunction(name: string) {
        const { text } = await ok(endpoint, 'lambda', {
          path: `/2015-03-31/functions/${encodeURIComponent(name)}`,
        });
        return JSON.parse(text) as {
          Configuration: {
            FunctionArn?: string;
            Role?: string;
            Handler?: string;
            Runtime?: string;
            Timeout?: number;
            MemorySize?: number;
            CodeSha256?: string;
            Environment?: { Variables?: Record<string, string> };
          };
        };
      },
    },
    s3: {
      async getObject(bucket: string, key: string): Promise<Buffer> {
        return (await ok(endpoint, 's3', { path: `/${bucket}/${key}` })).bytes;
      },
    },
    scheduler: {
      async getSchedule(name: string, group = 'default') {
        const { text } = await ok(endpoint, 'scheduler', {
          path: `/schedules/${encodeURIComponent(name)}?groupName=${group}`,
        });
        return JSON.parse(text) as { Arn: string; Target: { Arn: string; Input: string } };
      },
    },
    sts: {
      async assumeRole(roleArn: string) {
        const { text } = await queryCall('sts', {
          Action: 'AssumeRole',
          Version: '2011-06-15',
          RoleArn: roleArn,
          RoleSessionName: 'deploy-test',
        });
        return {
          AccessKeyId: xmlValue(text, 'AccessKeyId')!,
          SecretAccessKey: xmlValue(text, 'SecretAccessKey')!,
          SessionToken: xmlValue(text, 'SessionToken')!,
        };
      },
    },
    iam: {
      /** Every policy of a role as deployed: its inline policies and the attached managed ones. */
      async rolePolicies(roleArn: string): Promise<PolicyDocument[]> {
        const roleName = roleArn.slice(roleArn.lastIndexOf('/') + 1);
        const version = { Version: '2010-05-08' };
        const documents: PolicyDocument[] = [];
        const inline = await queryCall('iam', { Action: 'ListRolePolicies', RoleName: roleName, ...version });
        for (const name of xmlValues(inline.text, 'member')) {
          const policy = await queryCall('iam', {
            Action: 'GetRolePolicy',
            RoleName: roleName,
            PolicyName: name,
            ...version,
          });
          documents.push(JSON.parse(decodeURIComponent(xmlValue(policy.text, 'PolicyDocument')!)));
        }
        const attached = await queryCall('iam', {
          Action: 'ListAttachedRolePolicies',
          RoleName: roleName,
          ...version,
        });
        for (const arn of xmlValues(attached.text, 'PolicyArn')) {
          const policy = await queryCall('iam', { Action: 'GetPolicy', PolicyArn: arn, ...version });
          const versionId = xmlValue(policy.text, 'DefaultVersionId')!;
          const body = await queryCall('iam', {
            Action: 'GetPolicyVersion',
            PolicyArn: arn,
            VersionId: versionId,
            ...version,
          });
          documents.push(JSON.parse(decodeURIComponent(xmlValue(body.text, 'Document')!)));
        }
        return documents;
      },
    },
    kms: {
      /**
       * The ARN of a key given by id or ARN. Through ListKeys: moto's DescribeKey fails (500) on a key its
       * CloudFormation made (it stores the template's KeyPolicy object where it expects text).
       */
      async keyArn(keyId: string): Promise<string | undefined> {
        const { text } = await ok(endpoint, 'kms', {
          target: 'TrentService.ListKeys',
          json: { Limit: 1000 },
        });
        const keys = (JSON.parse(text) as { Keys: { KeyId: string; KeyArn: string }[] }).Keys;
        return keys.find((k) => k.KeyId === keyId || k.KeyArn === keyId)?.KeyArn;
      },
    },
    sqs: {
      /** Every message now in a queue (its URL), removed. */
      async drain(queueUrl: string): Promise<string[]> {
        const bodies: string[] = [];
        for (;;) {
          const { text } = await ok(endpoint, 'sqs', {
            target: 'AmazonSQS.ReceiveMessage',
            json: { QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 },
          });
          const messages =
            (JSON.parse(text) as { Messages?: { Body: string; ReceiptHandle: string }[] }).Messages ?? [];
          if (messages.length === 0) return bodies;
          for (const message of messages) {
            bodies.push(message.Body);
            await ok(endpoint, 'sqs', {
              target: 'AmazonSQS.DeleteMessage',
              json: { QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle },
            });
          }
        }
      },
    },
    /** Whether a call answers 2xx (a lookup of a resource). */
    async found(service: Service, options: Parameters<typeof request>[2]): Promise<boolean> {
      const answer = await request(endpoint, service, options);
      return answer.status < 300;
    },
    call: (service: Service, options: Parameters<typeof request>[2]) => request(endpoint, service, options),
    async query(service: Service, form: Record<string, string>) {
      return (await request(endpoint, service, { form })).text;
    },
  };
}

type Services = ReturnType<typeof services>;
type Exists = (aws: Services, physicalId: string, properties: Record<string, unknown>) => Promise<boolean>;

const sdkFound = async (send: () => Promise<unknown>): Promise<boolean> => {
  try {
    await send();
    return true;
  } catch {
    return false;
  }
};

/**
 * How to look up a deployed resource of each type the stack has, by its physical id. `null`: no resource of
 * its own to look up (a policy set as an attribute of its queue or topic, CDK metadata, Chatbot's stand-in):
 * the fill log lists those, and the test accepts them only as filled in.
 */
export const EXISTS: Record<string, Exists | null> = {
  'AWS::DynamoDB::Table': (aws, id) =>
    sdkFound(() => aws.dynamo.send(new DescribeTableCommand({ TableName: id }))),
  'AWS::SNS::Topic': (aws, id) =>
    sdkFound(() => aws.sns.send(new GetTopicAttributesCommand({ TopicArn: id }))),
  'AWS::SNS::Subscription': (aws, id) =>
    sdkFound(() => aws.sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: id }))),
  'AWS::SecretsManager::Secret': async (aws, id) => {
    try {
      const secret = await aws.secrets.send(new DescribeSecretCommand({ SecretId: id }));
      return secret.DeletedDate === undefined;
    } catch {
      return false;
    }
  },
  'AWS::SQS::Queue': (aws, id) =>
    aws.found('sqs', {
      target: 'AmazonSQS.GetQueueAttributes',
      json: { QueueUrl: id, AttributeNames: ['All'] },
    }),
  'AWS::KMS::Key': async (aws, id) => (await aws.kms.keyArn(id)) !== undefined,
  'AWS::IAM::Role': (aws, id) =>
    aws.found('iam', { form: { Action: 'GetRole', RoleName: id, Version: '2010-05-08' } }),
  'AWS::IAM::ManagedPolicy': (aws, id) =>
    aws.found('iam', { form: { Action: 'GetPolicy', PolicyArn: id, Version: '2010-05-08' } }),
  // An inline policy is found by its PolicyName on the roles (moto's physical id is a generated name).
  'AWS::IAM::Policy': async (aws, _id, properties) => {
    const id = String(properties['PolicyName']);
    const roles = await aws.query('iam', { Action: 'ListRoles', Version: '2010-05-08' });
    for (const role of xmlValues(roles, 'RoleName')) {
      const policies = await aws.query('iam', {
        Action: 'ListRolePolicies',
        RoleName: role,
        Version: '2010-05-08',
      });
      if (xmlValues(policies, 'member').includes(id)) return true;
    }
    return false;
  },
  'AWS::Lambda::Function': (aws, id) =>
    aws.found('lambda', { path: `/2015-03-31/functions/${encodeURIComponent(id)}` }),
  'AWS::Lambda::EventInvokeConfig': null,
  // The acknowledge function's URL (docs/acknowledge.md): its physical id is the function's ARN.
  'AWS::Lambda::Url': (aws, id) =>
    aws.found('lambda', { path: `/2021-10-31/functions/${encodeURIComponent(id)}/url` }),
  // A function's resource policy statement (the URL's public invoke): found among the functions' policies.
  'AWS::Lambda::Permission': async (aws, _id, properties) => {
    const { text } = await aws.call('lambda', { path: '/2015-03-31/functions/' });
    const names = (JSON.parse(text) as { Functions?: { FunctionName: string }[] }).Functions ?? [];
    for (const { FunctionName } of names) {
      const policy = await aws.call('lambda', {
        path: `/2015-03-31/functions/${encodeURIComponent(FunctionName)}/policy`,
      });
      if (policy.status >= 300) continue;
      const document = JSON.parse((JSON.parse(policy.text) as { Policy: string }).Policy) as {
        Statement: { Action?: string }[];
      };
      if (document.Statement.some((st) => st.Action === properties['Action'])) return true;
    }
    return false;
  },
  'AWS::Logs::LogGroup': async (aws, id) => {
    const { text } = await aws.call('logs', {
      target: 'Logs_20140328.DescribeLogGroups',
      json: { logGroupNamePrefix: id },
    });
    return (
      (JSON.parse(text) as { logGroups?: { logGroupName: string }[] }).logGroups?.some(
        (g) => g.logGroupName === id,
      ) ?? false
    );
  },
  'AWS::CloudWatch::Dashboard': async (aws, id) =>
    (
      await aws.query('monitoring', { Action: 'GetDashboard', DashboardName: id, Version: '2010-08-01' })
    ).includes('<DashboardBody>'),
  'AWS::CloudWatch::Alarm': async (aws, id) =>
    (
      await aws.query('monitoring', {
        Action: 'DescribeAlarms',
        'AlarmNames.member.1': id,
        Version: '2010-08-01',
      })
    ).includes(`<AlarmName>${id}</AlarmName>`),
  'AWS::Scheduler::Schedule': (aws, id) =>
    aws.found('scheduler', { path: `/schedules/${encodeURIComponent(id)}?groupName=default` }),
  'AWS::Events::Connection': (aws, id) =>
    aws.found('events', { target: 'AWSEvents.DescribeConnection', json: { Name: id } }),
  'AWS::Events::ApiDestination': (aws, id) =>
    aws.found('events', { target: 'AWSEvents.DescribeApiDestination', json: { Name: id } }),
  'AWS::Pipes::Pipe': (aws, id) => aws.found('pipes', { path: `/v1/pipes/${encodeURIComponent(id)}` }),
  'AWS::SNS::TopicPolicy': null,
  'AWS::SQS::QueuePolicy': null,
  'AWS::Chatbot::SlackChannelConfiguration': null,
  'AWS::Chatbot::MicrosoftTeamsChannelConfiguration': null,
  'AWS::CDK::Metadata': null,
  // The status page (docs/status-page.md). Its bucket policy is an attribute of its bucket, its response
  // headers policy a stand-in (no API in moto), its key pair the run of the key function (checked by the
  // status page tests).
  'AWS::S3::Bucket': (aws, id) => aws.found('s3', { path: `/${id}` }),
  'AWS::S3::BucketPolicy': null,
  'AWS::CloudFront::Distribution': (aws, id) =>
    aws.found('cloudfront', { path: `/2020-05-31/distribution/${id}` }),
  'AWS::CloudFront::OriginAccessControl': (aws, id) =>
    aws.found('cloudfront', { path: `/2020-05-31/origin-access-control/${id}` }),
  'AWS::CloudFront::PublicKey': (aws, id) =>
    aws.found('cloudfront', { path: `/2020-05-31/public-key/${id}` }),
  'AWS::CloudFront::KeyGroup': (aws, id) => aws.found('cloudfront', { path: `/2020-05-31/key-group/${id}` }),
  'AWS::CloudFront::ResponseHeadersPolicy': null,
  'Custom::StatusPageSigningKey': null,
};

/**
 * Whether the resource exists in the emulator. A type without an entry in {@link EXISTS} throws: add one.
 * A `null` entry answers true (such a resource is only accepted when the fill log lists it).
 */
export async function emulatedResourceExists(
  aws: Services,
  type: string,
  physicalId: string,
  properties: Record<string, unknown> = {},
): Promise<boolean> {
  if (!(type in EXISTS)) {
    throw new Error(
      `the deploy test does not know how to find a ${type}: add it to EXISTS in test/deploy/services.ts`,
    );
  }
  const exists = EXISTS[type];
  return exists === null || exists === undefined ? true : exists(aws, physicalId, properties);
}
