/**
 * Test setup (vitest `setupFiles`): keeps the Lambda's own log and metric lines out of the test run's output,
 * so that a failure stands out.
 *
 * Powertools' Logger and Metrics write one JSON line per record (`{"level":...}`, EMF `{"_aws":...}`) straight
 * to `process.stdout` / `process.stderr`, past vitest's console capture. This wraps both streams' `write`:
 * such lines are held back while a test runs and printed only if that test fails; everything else passes
 * through untouched. A test that spies on `write` to assert on the logs still sees every line (its spy wraps
 * this one). `TEST_SHOW_LOGS=1` prints them all as before.
 *
 * The AWS SDK's NodeVersionSupportWarning is turned off in the vitest configs, by its own switch.
 */
import { beforeEach, onTestFailed } from 'vitest';

/** A whole line from Powertools: a Logger record, an EMF metric document, or Metrics' empty-flush warning. */
const POWERTOOLS_LINE = /^(\{"(level|_aws)":|No application metrics to publish\.)/;

type Write = typeof process.stdout.write;

const held: Array<{ stream: NodeJS.WriteStream; text: string }> = [];
const originals = new Map<NodeJS.WriteStream, Write>();

function quiet(stream: NodeJS.WriteStream): void {
  if (originals.has(stream)) return;
  const write = stream.write.bind(stream) as Write;
  originals.set(stream, write);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && POWERTOOLS_LINE.test(chunk)) {
      held.push({ stream, text: chunk });
      const done = rest.find((arg) => typeof arg === 'function') as ((error?: Error) => void) | undefined;
      done?.();
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as Write;
}

if (process.env['TEST_SHOW_LOGS'] !== '1') {
  quiet(process.stdout);
  quiet(process.stderr);
  beforeEach(() => {
    held.length = 0;
    onTestFailed(() => {
      for (const { stream, text } of held.splice(0)) originals.get(stream)?.(text);
    });
  });
}
