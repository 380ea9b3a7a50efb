// Several server nodes behind nginx on this machine (docs/deployment.md#on-one-machine): the
// pieces `npm run cluster` (scripts/cluster.mjs) and the multi-node suite
// (server/src/cluster/cluster.test.ts) share. Plain Node with no static dependency, so
// scripts/test.mjs can import `ensureNginx` before `npm ci` has run; `pg` is loaded only by
// `prepareSchema`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from './lib.mjs';

export { SERVER_NODE_FLAGS };

export const root = path.resolve(import.meta.dirname, '..');
export const MAIN_JS = path.join(root, 'server/dist/main.js');
/** The proxy rules production and the local cluster share (server context). */
export const NGINX_PROXY_CONF = path.join(root, 'deploy/nginx/pipdesk-proxy.conf');

/** Keeps this much of a process's output: enough to explain a failure. */
const OUTPUT_KEPT = 20_000;

/** The nginx binary: `NGINX` when set, Debian's /usr/sbin/nginx, or one on PATH; undefined when none. */
export function findNginx() {
  const candidates = [process.env.NGINX, '/usr/sbin/nginx', '/usr/local/sbin/nginx'].filter(Boolean);
  for (const candidate of candidates) if (existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

/**
 * nginx, installed from Debian's packages when it is missing and we are root (as scripts/test.mjs
 * does for Chromium); undefined when it is still missing. The package's own service is not
 * started: the cluster runs its own nginx as the current user.
 */
export function ensureNginx({ log = console.log } = {}) {
  const found = findNginx();
  if (found || process.getuid?.() !== 0) return found;
  log('nginx is missing: installing Debian nginx (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  // policy-rc.d is Debian's switch for "do not start services on install"; a system nginx on
  // port 80 is not what the cluster wants.
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'nginx'], { stdio: 'inherit', env });
  } finally {
    if (ownPolicy) spawnSync('rm', ['-f', policy]);
  }
  return findNginx();
}

/** A TCP port nobody listens on now (another process may still take it before we do). */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A PostgreSQL URL whose connections work in `schema` (the search_path option). */
export function databaseUrlInSchema(base, schema) {
  return `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Creates `schema` in the database at `databaseUrl` when missing (dropping it first with `reset`). */
export async function prepareSchema(databaseUrl, schema, { reset = false } = {}) {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`schema must be a lower-case SQL identifier (got ${schema})`);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if (reset) await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`create schema if not exists ${schema}`);
  } finally {
    await client.end();
  }
}

/**
 * The whole nginx.conf of a local cluster: the upstream of `nodes` (host:port), one plain-HTTP
 * server on `listen` with the production proxy rules (deploy/nginx/pipdesk-proxy.conf), and
 * every path nginx writes inside `prefix`, so it runs as any user.
 */
export function renderNginxConfig({ prefix, listen, nodes }) {
  const p = (name) => path.join(prefix, name);
  // Started as root, nginx would drop its workers to "nobody", who cannot write the temp
  // folders made here; as anyone else the directive is ignored, so only root gets it.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  return `# Rendered by scripts/cluster-lib.mjs for npm run cluster and the multi-node suite.
${user}daemon off;
worker_processes 1;
pid ${p('nginx.pid')};
error_log ${p('error.log')} warn;
events { worker_connections 1024; }
http {
  access_log ${p('access.log')};
  client_body_temp_path ${p('client_body')};
  proxy_temp_path ${p('proxy')};
  fastcgi_temp_path ${p('fastcgi')};
  uwsgi_temp_path ${p('uwsgi')};
  scgi_temp_path ${p('scgi')};
  upstream pipdesk {
${nodes.map((node) => `    server ${node} max_fails=1 fail_timeout=5s;`).join('\n')}
    keepalive 16;
  }
  server {
    listen ${listen};
    include ${NGINX_PROXY_CONF};
  }
}
`;
}

/** Resolves once something accepts TCP connections at host:port; rejects after `timeoutMs`. */
async function waitForPort(host, port, timeoutMs, alive = () => true) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (!alive()) throw new Error('exited before it listened');
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Children still running when this process exits are killed with it (a failed test, an error). */
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Spawns a child that is killed on our exit and keeps the tail of its output. */
function spawnTracked(command, args, options, onOutput) {
  const proc = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  let stdout = '';
  let output = '';
  const keep = (chunk, isStdout) => {
    const text = chunk.toString();
    if (isStdout) stdout = (stdout + text).slice(-OUTPUT_KEPT);
    output = (output + text).slice(-OUTPUT_KEPT);
    onOutput?.(text);
  };
  proc.stdout.on('data', (chunk) => keep(chunk, true));
  proc.stderr.on('data', (chunk) => keep(chunk, false));
  return { proc, stdout: () => stdout, output: () => output };
}

/** Sends `signal`, then SIGKILL after `graceMs`; resolves once the process has exited. */
function stopProcess(proc, signal = 'SIGTERM', graceMs = 5_000) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    proc.kill(signal);
  });
}

/**
 * Starts nginx in the foreground with a rendered config in `prefix`; resolves once it accepts
 * connections on `host:port`.
 */
export async function startNginx({ nginx = findNginx(), prefix, host = '127.0.0.1', port, nodes }) {
  if (!nginx) throw new Error('nginx is not installed (Debian: apt-get install -y nginx)');
  mkdirSync(prefix, { recursive: true });
  const conf = path.join(prefix, 'nginx.conf');
  writeFileSync(conf, renderNginxConfig({ prefix, listen: `${host}:${port}`, nodes }));
  // -e: the error log before the config is read; Debian's default path needs root.
  const child = spawnTracked(nginx, ['-p', prefix, '-c', conf, '-e', path.join(prefix, 'error.log')], { cwd: prefix });
  try {
    await waitForPort(host, port, 10_000, () => child.proc.exitCode === null);
  } catch (err) {
    await stopProcess(child.proc, 'SIGKILL');
    throw new Error(`nginx did not start (${err.message}): ${child.output()}`);
  }
  return {
    process: child.proc,
    url: `http://${host}:${port}`,
    conf,
    output: child.output,
    /** SIGQUIT: nginx's graceful stop (open sockets are closed). */
    stop: () => stopProcess(child.proc, 'SIGQUIT'),
  };
}

/**
 * Spawns one node (`node server/dist/main.js`) with `env` (its whole environment) and resolves
 * once it prints the address it listens on; rejects with its output when it exits first or
 * does not listen within `timeoutMs`.
 */
export function startNode({ name, env, timeoutMs = 60_000, onOutput }) {
  const child = spawnTracked(process.execPath, [...SERVER_NODE_FLAGS, MAIN_JS], { cwd: root, env }, onOutput);
  const node = {
    name,
    process: child.proc,
    url: '',
    stdout: child.stdout,
    output: child.output,
    /** SIGTERM: the server drains and closes. */
    stop: () => stopProcess(child.proc, 'SIGTERM'),
    /** SIGKILL: a crash, nothing drained (the leader's lock goes with its connection). */
    kill: () => stopProcess(child.proc, 'SIGKILL', 0),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.proc.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${timeoutMs} ms: ${child.output()}`));
    }, timeoutMs);
    const onData = () => {
      const match = /running at (http:\/\/\S+)/.exec(child.stdout());
      if (!match) return;
      clearTimeout(timer);
      child.proc.stdout.off('data', onData);
      child.proc.off('exit', onExit);
      node.url = match[1];
      resolve(node);
    };
    const onExit = (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code ?? signal}: ${child.output()}`));
    };
    child.proc.stdout.on('data', onData);
    child.proc.once('exit', onExit);
  });
}

/**
 * N nodes on one PostgreSQL (`databaseUrl`, already pointing at its schema) and one Redis
 * (`redisUrl`, under `redisPrefix`) behind one nginx in `dir`, on this machine. Every node has
 * its own data folder, and a JWT_SECRET only if `env` has one (without it the nodes share the
 * secret kept in the database). The first node starts alone (it migrates a new schema and wins the leader lock);
 * the others start together once it listens. `env` is added to every node's environment
 * (the caller passes PATH and whatever else it wants inherited).
 */
export async function startCluster({ nodes: count, dir, databaseUrl, redisUrl, redisPrefix, port, nginx, env = {}, onOutput }) {
  if (!Number.isInteger(count) || count < 1) throw new Error(`nodes must be a positive integer (got ${count})`);
  const started = [];
  let proxy;
  const stop = async () => {
    await proxy?.stop();
    await Promise.all(started.map((node) => node.stop()));
  };
  try {
    const nodeEnv = (i) => {
      const dataDir = path.join(dir, `node-${i}`);
      mkdirSync(dataDir, { recursive: true });
      return {
        ...env,
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_CHANNEL_PREFIX: redisPrefix,
      };
    };
    const launch = async (i) => {
      const node = await startNode({ name: `node-${i}`, env: nodeEnv(i), onOutput: onOutput && ((text) => onOutput(i, text)) });
      started.push(node);
      return node;
    };
    await launch(1);
    // allSettled: when one fails, the others have finished starting before they are stopped.
    const rest = await Promise.allSettled(Array.from({ length: count - 1 }, (_, i) => launch(i + 2)));
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    started.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    proxy = await startNginx({
      nginx,
      prefix: path.join(dir, 'nginx'),
      port: port ?? (await freePort()),
      nodes: started.map((node) => new URL(node.url).host),
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: proxy.url, nodes: started, nginx: proxy, stop };
}
