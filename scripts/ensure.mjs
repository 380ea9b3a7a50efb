// Installs missing dependencies and builds what changed (used by `npm run trader`).
import { buildIfChanged, ensureInstalled } from './lib.mjs';

await ensureInstalled();
await buildIfChanged();
