import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { AWS_HTTP_OPTIONS } from '../../lambda/adapters/aws-clients.ts';
import { createSecretsClient } from '../../lambda/adapters/secrets-client.ts';
import { ConfigError, MIN_KEY_LENGTH } from '../../lambda/config.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { defineCommand } from '../args.ts';
import { UsageError } from '../format.ts';
import { type CliIo, type Command, println } from '../io.ts';

/** The stack `bin/app.ts` deploys. */
export const DEFAULT_STACK_NAME = 'Shieldwatch';

type Env = Readonly<Record<string, string | undefined>>;

/** What the standard input is read from: the process's, or a test's stream. */
export type KeyInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

/**
 * The key from standard input. From a terminal: typed after a prompt on stderr, without echo. Otherwise:
 * everything piped in, without its final line break. Surrounding whitespace is dropped, as the loader does.
 */
export async function readKey(stdin: KeyInput, stderr: NodeJS.WritableStream): Promise<string> {
  const raw =
    stdin.isTTY === true && stdin.setRawMode !== undefined
      ? await readHidden(stdin, stderr)
      : await readAll(stdin);
  return raw.trim();
}

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads one line from a terminal in raw mode, so that nothing typed is shown; Ctrl-C cancels. */
function readHidden(stdin: KeyInput, stderr: NodeJS.WritableStream): Promise<string> {
  // Echo off before the prompt shows: a key typed (or pasted) the moment the prompt appears is never echoed.
  stdin.setRawMode!(true);
  stderr.write('API key (not shown, Enter to finish): ');
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      stderr.write('\n');
      if (error === undefined) resolve(typed);
      else reject(error);
    };
    const onData = (text: string) => {
      for (const ch of text) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new UsageError('cancelled: the secret was not changed'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Why the key cannot be used, as the loader would refuse it, without showing it. */
export function keyProblem(key: string): string | undefined {
  if (key === '') {
    return 'no key on standard input: type it at the prompt in a terminal, or pipe it in (e.g. from a password manager)';
  }
  if (!/^[\x21-\x7E]+$/.test(key)) return 'the key must be printable ASCII without spaces (value not shown)';
  if (key.length < MIN_KEY_LENGTH) {
    return `the key is shorter than ${MIN_KEY_LENGTH} characters (value not shown)`;
  }
  return undefined;
}

/** The outputs of a stack, by key. */
async function stackOutputs(env: Env, stackName: string): Promise<Record<string, string>> {
  // Loaded here, as cli/stack.ts does: no other command pays for the CloudFormation client at start-up.
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const region = env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'];
  const client = new CloudFormationClient({
    ...(region === undefined ? {} : { region }),
    requestHandler: AWS_HTTP_OPTIONS,
  });
  try {
    const answer = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = answer.Stacks?.[0]?.Outputs ?? [];
    return Object.fromEntries(
      outputs.flatMap((o) =>
        o.OutputKey === undefined || o.OutputValue === undefined ? [] : [[o.OutputKey, o.OutputValue]],
      ),
    );
  } catch (error) {
    throw new Error(
      `cannot read the outputs of stack ${stackName}: ${(error as Error).message} ` +
        '(deploy it first, name it with --stack, or give the secret with --secret NAME)',
    );
  } finally {
    client.destroy();
  }
}

/**
 * `set-key`: puts the API key, read from standard input, into the stack's secret, then runs one `check` with
 * it. The check command is handed in (commands do not import each other).
 */
export function setKeyCommand(check: Command): Command {
  return defineCommand({
    name: 'set-key',
    hideArguments: true,
    description: [
      'Reads the API key from standard input, never from an argument (it would stay in the shell history',
      'and the process list): typed at a prompt without echo in a terminal, or piped in. Puts it into the',
      "Secrets Manager secret (PutSecretValue; the secret's value becomes the key itself), then runs one",
      '`shieldwatch check` against the API with the key read back from that secret.',
    ].join('\n'),
    options: {
      secret: {
        type: 'string',
        value: 'NAME',
        description: "the secret's name or ARN (default: the SecretName output of the stack)",
      },
      stack: {
        type: 'string',
        value: 'NAME',
        description: `the stack whose SecretName output names the secret (default: SHIELDWATCH_STACK, else ${DEFAULT_STACK_NAME})`,
      },
    },
    examples: [
      'set-key',
      'set-key --stack Shieldwatch-prod < key.txt',
      'set-key --secret shieldwatch/api-key',
    ],
    notes: [
      'AWS settings as for the AWS CLI (AWS_REGION, AWS_PROFILE, ...). The check needs SHIELDWATCH_API_URL',
      "(or takes the stack's ApiUrl output) and reads the other settings as `check` does. The key is never",
      'printed.',
      '',
      'Exit codes: those of check (0 ready, 1 not); 1 the secret could not be found or written; 2 no key on',
      'standard input, a key the monitor would refuse, or bad configuration for the check.',
    ].join('\n'),
    async run(values, io: CliIo) {
      const stackName = values.stack ?? ((io.env['SHIELDWATCH_STACK'] ?? '').trim() || DEFAULT_STACK_NAME);
      const key = await readKey(process.stdin, io.stderr);
      const problem = keyProblem(key);
      if (problem !== undefined) throw new UsageError(problem);

      const outputs = values.secret === undefined ? await stackOutputs(io.env, stackName) : {};
      const secretId = values.secret ?? outputs['SecretName'];
      if (secretId === undefined) {
        throw new Error(`stack ${stackName} has no SecretName output: give the secret with --secret NAME`);
      }
      const secrets = createSecretsClient(io.env);
      try {
        const put = await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: key }));
        println(
          io.stdout,
          `key            put into secret ${put.Name ?? secretId} (version ${put.VersionId ?? '?'})`,
        );
      } catch (error) {
        throw new Error(`cannot put the key into secret ${secretId}: ${(error as Error).message}`);
      } finally {
        secrets.destroy();
      }

      const apiUrl = io.env[SETTINGS.apiUrl.env] ?? outputs['ApiUrl'];
      const env = {
        ...io.env,
        [SETTINGS.apiKey.env]: undefined,
        [SETTINGS.apiKeySecret.env]: secretId,
        ...(apiUrl === undefined ? {} : { [SETTINGS.apiUrl.env]: apiUrl }),
      };
      try {
        return await check.run({}, { ...io, env });
      } catch (error) {
        if (error instanceof ConfigError) {
          println(io.stderr, 'shieldwatch set-key: the key is in the secret, but check could not run:');
        }
        throw error;
      }
    },
  });
}
