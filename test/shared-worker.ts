/**
 * Test setup of the `shared` vitest project (vitest.config.ts): the unit and stack tests run several files to one
 * worker process (`isolate: false`), which spares each file a fresh import of the core, aws-cdk-lib and the AWS
 * SDK. So that no file leaves anything to the next, what a file changed in the environment is undone after it,
 * and its stubs, spies and fake timers restored.
 */
import { afterAll, vi } from 'vitest';

const before = { ...process.env };

afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const name of Object.keys(process.env)) {
    if (!Object.hasOwn(before, name)) delete process.env[name];
  }
  for (const [name, value] of Object.entries(before)) {
    if (process.env[name] !== value) process.env[name] = value;
  }
});
