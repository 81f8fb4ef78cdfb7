#!/usr/bin/env -S node --
// `--` ends Node's own options: Node 20 would otherwise take our `--env-file FILE` for its own and exit.
// Runs the TypeScript CLI straight from the source tree, so `npx shieldwatch` works right after `npm ci`.
// The AWS SDK's Node 20 notice is for developers of the SDK's users, not for operators reading our output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
