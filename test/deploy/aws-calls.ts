/**
 * The AWS calls the deployed function makes, recorded and turned into what IAM authorizes.
 *
 * {@link startRecorder} is an HTTP proxy on 127.0.0.1 in front of the emulator: the function's
 * `AWS_ENDPOINT_URL` points at it, so every call it makes passes here and is recorded (service from the
 * SigV4 credential scope, operation from `X-Amz-Target` or the query protocol's `Action`, parameters from the
 * body) before it is forwarded unchanged.
 *
 * {@link authzRequests} maps one call to the IAM requests AWS evaluates for it: the action, the resource ARN
 * and the condition keys (such as `dynamodb:LeadingKeys`), plus the calls AWS makes with the caller's
 * permissions on its behalf (KMS for a publish to an encrypted topic). A call it has no mapping for throws:
 * a new kind of call must be mapped here before the test can pass, so that its grant is checked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthzRequest } from './iam-policy.ts';

/** One AWS call as the recorder saw it. */
export interface AwsCall {
  /** The signing name of the service: `dynamodb`, `sns`, `secretsmanager`... */
  readonly service: string;
  /** The operation: `PutItem`, `Publish`, `GetSecretValue`... */
  readonly operation: string;
  /** The request parameters: the JSON body, or the query protocol's form fields. */
  readonly params: Record<string, unknown>;
  /** The answer's HTTP status. */
  status?: number;
}

/** A running recorder. */
export interface Recorder {
  /** Its endpoint, for `AWS_ENDPOINT_URL`. */
  readonly url: string;
  /** Every call forwarded, in order. */
  readonly calls: AwsCall[];
  close(): Promise<void>;
}

/** Starts the recording proxy in front of `target` (the emulator's endpoint). */
export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  const calls: AwsCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const call = parseCall(req.headers, body, req.method ?? 'GET', req.url ?? '/');
      if (call !== undefined) calls.push(call);
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          if (call !== undefined) call.status = answer.statusCode;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** S3's REST calls by method, addressed by path (`/BUCKET/KEY`, as a client with a custom endpoint does). */
const S3_OBJECT_OPERATIONS: Readonly<Record<string, string>> = {
  PUT: 'PutObject',
  GET: 'GetObject',
  HEAD: 'HeadObject',
  DELETE: 'DeleteObject',
};

function parseS3Call(method: string, url: string): AwsCall {
  const { pathname, searchParams } = new URL(url, 'http://s3.local');
  const [bucket = '', ...rest] = pathname.slice(1).split('/');
  const key = decodeURIComponent(rest.join('/'));
  const subresources = [...searchParams.keys()].filter(
    (k) => !k.startsWith('x-id') && !k.startsWith('X-Amz-'),
  );
  // A bucket-level or subresource call (ListObjects, ?policy, ?delete...) gets no object mapping: it fails.
  const operation =
    key !== '' && subresources.length === 0 ? (S3_OBJECT_OPERATIONS[method] ?? method) : `${method} ${url}`;
  return { service: 's3', operation, params: { Bucket: decodeURIComponent(bucket), Key: key } };
}

function parseCall(
  headers: http.IncomingHttpHeaders,
  body: Buffer,
  method: string,
  url: string,
): AwsCall | undefined {
  const scope = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(
    String(headers.authorization ?? ''),
  );
  if (scope === null) return undefined;
  const service = scope[1]!;
  if (service === 's3') return parseS3Call(method, url);
  const target = headers['x-amz-target'];
  if (typeof target === 'string') {
    const text = body.toString('utf8');
    return {
      service,
      operation: target.slice(target.lastIndexOf('.') + 1),
      params: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  }
  const form = new URLSearchParams(body.toString('utf8'));
  const operation = form.get('Action');
  if (operation === null) return { service, operation: '(unknown)', params: {} };
  return { service, operation, params: Object.fromEntries(form) };
}

/** What {@link authzRequests} needs to know about the deployment: ARNs and key schemas. */
export interface Deployment {
  readonly account: string;
  readonly region: string;
  /** The partition key attribute of each table, by table name. */
  readonly partitionKeys: Readonly<Record<string, string>>;
  /** The full ARN of a secret given as a name or an ARN (the emulator's DescribeSecret). */
  readonly secretArns: Readonly<Record<string, string>>;
  /** The KMS key ARN of each encrypted topic, by topic ARN. */
  readonly topicKeys: Readonly<Record<string, string>>;
}

type Item = Record<string, Record<string, unknown>>;

function stringOf(attribute: Record<string, unknown> | undefined): string | undefined {
  if (attribute === undefined) return undefined;
  const value = attribute['S'] ?? attribute['N'] ?? attribute['B'];
  return value === undefined ? undefined : String(value);
}

/** The partition key values a Query's key condition names (`#pk = :pk` or `pk = :v`). */
function queryLeadingKeys(params: Record<string, unknown>, partitionKey: string): string[] {
  const names = (params['ExpressionAttributeNames'] ?? {}) as Record<string, string>;
  const values = (params['ExpressionAttributeValues'] ?? {}) as Item;
  const expression = String(params['KeyConditionExpression'] ?? '');
  const keys: string[] = [];
  for (const match of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const name = match[1]!.startsWith('#') ? names[match[1]!] : match[1];
    if (name === partitionKey) {
      const value = stringOf(values[match[2]!]);
      if (value !== undefined) keys.push(value);
    }
  }
  const legacy = (params['KeyConditions'] ?? {}) as Record<string, { AttributeValueList?: Item[string][] }>;
  for (const value of legacy[partitionKey]?.AttributeValueList ?? []) {
    const text = stringOf(value as Record<string, unknown>);
    if (text !== undefined) keys.push(text);
  }
  if (keys.length === 0) throw new Error(`cannot read the partition key of the query ${expression}`);
  return keys;
}

const ITEM_OPERATIONS = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']);

function dynamoRequests(call: AwsCall, deployment: Deployment): AuthzRequest[] {
  const { params, operation } = call;
  const tableArn = (table: string, index?: unknown) =>
    `arn:aws:dynamodb:${deployment.region}:${deployment.account}:table/${table}${index === undefined ? '' : `/index/${String(index)}`}`;
  const partitionKey = (table: string) => {
    const key = deployment.partitionKeys[table];
    if (key === undefined) throw new Error(`the function called ${operation} on an unknown table ${table}`);
    return key;
  };
  const one = (action: string, table: string, leadingKeys: string[], index?: unknown): AuthzRequest => ({
    action: `dynamodb:${action}`,
    resource: tableArn(table, index),
    context: { 'dynamodb:LeadingKeys': leadingKeys },
  });
  const leading = (table: string, item: Item | undefined) => {
    const value = stringOf(item?.[partitionKey(table)]);
    return value === undefined ? [] : [value];
  };
  if (ITEM_OPERATIONS.has(operation)) {
    const table = String(params['TableName']);
    const item = (operation === 'PutItem' ? params['Item'] : params['Key']) as Item;
    return [one(operation, table, leading(table, item))];
  }
  if (operation === 'Query') {
    const table = String(params['TableName']);
    return [one('Query', table, queryLeadingKeys(params, partitionKey(table)), params['IndexName'])];
  }
  if (operation === 'BatchWriteItem' || operation === 'BatchGetItem') {
    const requestItems = params['RequestItems'] as Record<string, unknown>;
    return Object.entries(requestItems).map(([table, entry]) => {
      const keys =
        operation === 'BatchWriteItem'
          ? (entry as { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]).flatMap((w) =>
              leading(table, w.PutRequest?.Item ?? w.DeleteRequest?.Key),
            )
          : ((entry as { Keys: Item[] }).Keys ?? []).flatMap((k) => leading(table, k));
      return one(operation, table, keys);
    });
  }
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    // IAM authorizes each item with the action of its kind.
    const kinds: Record<string, string> = {
      Put: 'PutItem',
      Update: 'UpdateItem',
      Delete: 'DeleteItem',
      ConditionCheck: 'ConditionCheckItem',
      Get: 'GetItem',
    };
    return (
      params['TransactItems'] as Record<string, { TableName: string; Item?: Item; Key?: Item }>[]
    ).flatMap((entry) =>
      Object.entries(entry).map(([kind, detail]) =>
        one(kinds[kind] ?? kind, detail.TableName, leading(detail.TableName, detail.Item ?? detail.Key)),
      ),
    );
  }
  if (operation === 'DescribeTable' || operation === 'DescribeTimeToLive') {
    return [
      { action: `dynamodb:${operation}`, resource: tableArn(String(params['TableName'])), context: {} },
    ];
  }
  throw new Error(`no IAM mapping for dynamodb:${operation}: add it to test/deploy/aws-calls.ts`);
}

/**
 * The IAM requests AWS evaluates for one call of the function, including those made on its behalf with its
 * permissions (a publish to a KMS-encrypted topic needs `kms:GenerateDataKey` and `kms:Decrypt` on the key).
 */
export function authzRequests(call: AwsCall, deployment: Deployment): AuthzRequest[] {
  const { service, operation, params } = call;
  if (service === 'dynamodb') return dynamoRequests(call, deployment);
  if (service === 'sns' && operation === 'Publish') {
    const topic = String(params['TopicArn'] ?? params['TargetArn']);
    const key = deployment.topicKeys[topic];
    const viaSns = { 'kms:ViaService': [`sns.${deployment.region}.amazonaws.com`] };
    return [
      { action: 'sns:Publish', resource: topic, context: {} },
      ...(key === undefined
        ? []
        : [
            { action: 'kms:GenerateDataKey', resource: key, context: viaSns },
            { action: 'kms:Decrypt', resource: key, context: viaSns },
          ]),
    ];
  }
  if (service === 'secretsmanager' && (operation === 'GetSecretValue' || operation === 'DescribeSecret')) {
    const id = String(params['SecretId']);
    const arn = deployment.secretArns[id];
    if (arn === undefined) throw new Error(`the function read an unknown secret ${id}`);
    return [{ action: `secretsmanager:${operation}`, resource: arn, context: {} }];
  }
  if (service === 'secretsmanager' && operation === 'PutSecretValue') {
    const id = String(params['SecretId']);
    const arn = deployment.secretArns[id];
    if (arn === undefined) throw new Error(`the function wrote an unknown secret ${id}`);
    return [{ action: 'secretsmanager:PutSecretValue', resource: arn, context: {} }];
  }
  if (service === 's3' && ['PutObject', 'GetObject', 'DeleteObject'].includes(operation)) {
    // SSE-S3 (the bucket's default encryption) needs no KMS grant of the caller.
    const object = `arn:aws:s3:::${String(params['Bucket'])}/${String(params['Key'])}`;
    return [{ action: `s3:${operation}`, resource: object, context: {} }];
  }
  if (service === 's3' && operation === 'HeadObject') {
    const object = `arn:aws:s3:::${String(params['Bucket'])}/${String(params['Key'])}`;
    return [{ action: 's3:GetObject', resource: object, context: {} }];
  }
  throw new Error(`no IAM mapping for ${service}:${operation}: add it to test/deploy/aws-calls.ts`);
}
