// `npm run cluster -- --nodes N`: N server nodes on PostgreSQL and Redis behind nginx, on this
// machine (docs/deployment.md#on-one-machine). Ctrl-C stops everything.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { databaseUrlInSchema, ensureNginx, prepareSchema, root, startCluster } from './cluster-lib.mjs';
import { buildIfChanged, ensureInstalled } from './lib.mjs';

const usage = `npm run cluster -- [--nodes 2] [--port 8080] [--schema pipdesk_cluster] [--reset]
  --nodes N         server processes (default 2)
  --port P          nginx's port on 127.0.0.1 (default 8080; 0 picks a free one)
  --database-url U  PostgreSQL (default DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test)
  --schema S        the schema the cluster keeps its data in, between runs (default pipdesk_cluster)
  --reset           drop that schema first (a new database: migrations, demo seed, chart history)
  --redis-url U     Redis (default REDIS_URL, else redis://127.0.0.1:6379)
  --redis-prefix P  its channel and key prefix (default pipdesk-cluster:)
Every other setting comes from the environment, as for npm start (JWT_SECRET excepted: the
nodes share the database's secret). Logs: .tmp/cluster/node-N.log.`;

let options;
try {
  options = parseArgs({
    options: {
      nodes: { type: 'string', default: '2' },
      port: { type: 'string', default: '8080' },
      'database-url': { type: 'string', default: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test' },
      schema: { type: 'string', default: 'pipdesk_cluster' },
      reset: { type: 'boolean', default: false },
      'redis-url': { type: 'string', default: process.env.REDIS_URL || 'redis://127.0.0.1:6379' },
      'redis-prefix': { type: 'string', default: 'pipdesk-cluster:' },
      help: { type: 'boolean', default: false },
    },
  }).values;
} catch (err) {
  console.error(`${err.message}\n\n${usage}`);
  process.exit(1);
}
if (options.help) {
  console.log(usage);
  process.exit(0);
}
const nodes = Number(options.nodes);
const port = Number(options.port);
if (!Number.isInteger(nodes) || nodes < 1 || nodes > 16) fail('--nodes must be a whole number from 1 to 16');
if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port must be a port number (0 picks a free one)');
const databaseUrl = options['database-url'];
const redisUrl = options['redis-url'];
if (!/^postgres(ql)?:\/\//.test(databaseUrl))
  fail('--database-url must be a postgres:// URL: several nodes share one PostgreSQL');
if (!/^rediss?:\/\//.test(redisUrl)) fail('--redis-url must be a redis:// URL');

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** host:port of a URL accepts TCP connections (a clear line now instead of N failing nodes later). */
function reachable(url, defaultPort) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || defaultPort) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

try {
  await ensureInstalled();
  await buildIfChanged();
} catch (err) {
  fail(err.message);
}
const nginx = ensureNginx();
if (!nginx) fail('nginx is not installed: sudo apt-get install -y nginx (or set NGINX to its binary)');
if (!(await reachable(databaseUrl, 5432))) fail(`PostgreSQL is not reachable at ${new URL(databaseUrl).host}`);
if (!(await reachable(redisUrl, 6379))) fail(`Redis is not reachable at ${new URL(redisUrl).host}`);
try {
  await prepareSchema(databaseUrl, options.schema, { reset: options.reset });
} catch (err) {
  fail(`Could not prepare schema ${options.schema}: ${err.message}`);
}

const logDir = path.join(root, '.tmp/cluster');
mkdirSync(logDir, { recursive: true });
const logs = Array.from({ length: nodes }, (_, i) => createWriteStream(path.join(logDir, `node-${i + 1}.log`)));
const dir = mkdtempSync(path.join(tmpdir(), 'pipdesk-cluster-'));
// Behind nginx as in production: client addresses come from X-Forwarded-For (deploy/pipdesk.env.example).
const env = { SEED_DEMO: 'true', TRUST_PROXY: 'true', ...process.env };
delete env.JWT_SECRET;

console.log(`Starting ${nodes} node(s) on schema ${options.schema} and Redis prefix ${options['redis-prefix']}...`);
let cluster;
try {
  cluster = await startCluster({
    nodes,
    dir,
    databaseUrl: databaseUrlInSchema(databaseUrl, options.schema),
    redisUrl,
    redisPrefix: options['redis-prefix'],
    port: port === 0 ? undefined : port,
    nginx,
    env,
    onOutput: (node, text) => logs[node - 1]?.write(text),
  });
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  fail(`The cluster did not start: ${err.message.slice(-3000)}`);
}

let stopping = false;
for (const node of cluster.nodes) {
  node.process.once('exit', (code, signal) => {
    if (!stopping) console.log(`${node.name} (pid ${node.process.pid}) exited with ${code ?? signal}; the others go on.`);
  });
}
cluster.nginx.process.once('exit', (code, signal) => {
  if (!stopping) console.log(`nginx exited with ${code ?? signal}: ${cluster.nginx.output().slice(-2000)}`);
});

console.log(`\nPipdesk cluster at ${cluster.url}`);
for (const node of cluster.nodes) console.log(`  ${node.name}: ${node.url} (pid ${node.process.pid})`);
if (env.SEED_DEMO !== 'false') console.log('Sign in with demo@pipdesk.dev / demo-trader-2026');
console.log(`Logs in ${path.relative(process.cwd(), logDir) || '.'}; the node that leads logs "order engine: leading".`);
console.log('Kill a node (kill -9 <pid>) to watch another take over; Ctrl-C stops everything.\n');

async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping nginx and the nodes...`);
  await cluster.stop();
  for (const log of logs) log.end();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop(signal));
