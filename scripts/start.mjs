// `npm start`: install when needed, build what changed, then run the server (which
// migrates and seeds the database on its own and prints the URL and demo credentials).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildIfChanged, ensureInstalled, root, SERVER_NODE_FLAGS } from './lib.mjs';

try {
  await ensureInstalled();
  await buildIfChanged();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, path.join(root, 'server/dist/main.js')], {
  cwd: root,
  stdio: 'inherit',
});
// Pass stop signals on so the server shuts down gracefully.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
