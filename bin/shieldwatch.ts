import { main } from '../cli/main.ts';

// Entry for `tsx bin/shieldwatch.ts`; `npx shieldwatch` goes through bin/shieldwatch.mjs to the same main.
process.exitCode = await main(process.argv.slice(2));
