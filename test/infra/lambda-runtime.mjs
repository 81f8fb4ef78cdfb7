// Runs a bundled Lambda handler the way the Node.js runtime does: the module is imported once (the cold
// start), then the handler is invoked for each event the parent sends over IPC, with a Lambda-like context.
// Usage: node lambda-runtime.mjs <module path> <export name> <timeout seconds>
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [modulePath, exportName, timeoutSeconds] = process.argv.slice(2);
const handler = (await import(pathToFileURL(modulePath).href))[exportName];
if (typeof handler !== 'function') throw new Error(`${modulePath} does not export a function ${exportName}`);

process.on('message', async ({ id, event }) => {
  const deadline = Date.now() + Number(timeoutSeconds) * 1000;
  const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
  const context = {
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${name}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: randomUUID(),
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: '2025/01/01/[$LATEST]0123456789abcdef',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
  try {
    const result = await handler(event, context);
    process.send({ id, ok: true, result });
  } catch (error) {
    process.send({ id, ok: false, error: { name: error?.name, message: String(error?.message ?? error) } });
  }
});
process.send({ ready: true });
