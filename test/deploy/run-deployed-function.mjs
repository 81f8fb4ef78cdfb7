// Runs the deployed Lambda code once, as the Node.js runtime would: imports the handler module of the code
// directory (argv[2], the unzipped asset), calls its handler with the event (argv[3], a JSON file) and a
// Lambda context built from the environment the parent gave (the deployed function's own variables plus
// what the Lambda runtime sets), and prints `RESULT <json>` or `ERROR <message>` as its last line.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [codeDir, eventFile, handlerSpec = 'index.handler', timeoutSeconds = '60'] = process.argv.slice(2);
const dot = handlerSpec.lastIndexOf('.');
const moduleName = handlerSpec.slice(0, dot);
const exportName = handlerSpec.slice(dot + 1);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const deadline = Date.now() + Number(timeoutSeconds) * 1000;
const env = process.env;
const context = {
  functionName: env.AWS_LAMBDA_FUNCTION_NAME,
  functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
  invokedFunctionArn: env.SHIELDWATCH_DEPLOY_TEST_FUNCTION_ARN,
  memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
  awsRequestId: crypto.randomUUID(),
  logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
  logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
try {
  const module = await import(pathToFileURL(`${codeDir}/${moduleName}.mjs`).href);
  const result = await module[exportName](event, context);
  process.stdout.write(`\nRESULT ${JSON.stringify(result ?? null)}\n`);
} catch (error) {
  process.stdout.write(
    `\nERROR ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
  );
  process.exitCode = 1;
}
