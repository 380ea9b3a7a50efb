import { buildIfChanged, ensureInstalled } from './lib.mjs';

await ensureInstalled();
await buildIfChanged({ force: process.argv.includes('--force') });
