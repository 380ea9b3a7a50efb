import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findNginx, NGINX_PROXY_CONF, root, SERVER_NODE_FLAGS } from '../../../scripts/cluster-lib.mjs';
import { testDbKind } from '../test/helpers.js';

const nginx = findNginx();
const openssl = ['/usr/bin/openssl', '/usr/local/bin/openssl'].find((p) => spawnSync(p, ['version']).status === 0);
const systemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

/**
 * The production site as shipped (deploy/nginx/pipdesk.conf with the proxy rules it includes)
 * passes `nginx -t` once its placeholders point at real files: a typo in the file an operator
 * copies fails here, not on their server. The proxy rules themselves run for real in
 * cluster.test.ts. Once per run (the SQLite project), wherever nginx and openssl are installed.
 */
describe.skipIf(!nginx || !openssl || testDbKind !== 'sqlite')('the production nginx site', () => {
  it('passes nginx -t with a certificate in place', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pipdesk-nginx-'));
    try {
      const cert = path.join(dir, 'cert.pem');
      const key = path.join(dir, 'key.pem');
      const made = spawnSync(
        openssl!,
        ['req', '-x509', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-days', '1'].concat([
          '-subj',
          '/CN=trade.example.com',
          '-keyout',
          key,
          '-out',
          cert,
        ]),
        { encoding: 'utf8' },
      );
      expect(made.status, made.stderr).toBe(0);
      const site = readFileSync(path.join(root, 'deploy/nginx/pipdesk.conf'), 'utf8')
        .replaceAll('/etc/letsencrypt/live/trade.example.com/fullchain.pem', cert)
        .replaceAll('/etc/letsencrypt/live/trade.example.com/privkey.pem', key)
        .replaceAll('/etc/nginx/snippets/pipdesk-proxy.conf', NGINX_PROXY_CONF);
      // Every path a directive names now exists (comments still name the production ones).
      expect(site.split('\n').filter((line) => /^\s*[^#\s].*\/etc\//.test(line))).toEqual([]);
      const conf = path.join(dir, 'nginx.conf');
      writeFileSync(
        conf,
        `pid ${dir}/nginx.pid;\nevents {}\nhttp {\n${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
          .map((t) => `  ${t}_temp_path ${dir}/${t};`)
          .join('\n')}\n${site}\n}\n`,
      );
      const checked = spawnSync(nginx!, ['-t', '-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { encoding: 'utf8' });
      expect(checked.status, checked.stderr).toBe(0);
      expect(checked.stderr).toContain('test is successful');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The systemd unit as shipped (deploy/systemd/pipdesk@.service) has no key systemd does not know
 * and no bad value: `systemd-analyze verify` on an instance of it, wherever systemd is installed.
 */
describe.skipIf(!systemdAnalyze || testDbKind !== 'sqlite')('the systemd unit', () => {
  it('passes systemd-analyze verify', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pipdesk-unit-'));
    try {
      const unit = path.join(dir, 'pipdesk@8080.service');
      writeFileSync(unit, readFileSync(path.join(root, 'deploy/systemd/pipdesk@.service'), 'utf8'));
      const checked = spawnSync('systemd-analyze', ['verify', '--man=no', unit], { encoding: 'utf8' });
      // It names the unit's file on every problem it finds (unknown keys are only warnings, still printed).
      expect(`${checked.stdout}${checked.stderr}`).not.toContain(unit);
      expect(checked.status, checked.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The unit starts the server as `npm start` and the cluster do (docs/operations.md#the-node-process). */
describe.skipIf(testDbKind !== 'sqlite')('the systemd unit’s command', () => {
  it('runs node with the flags every server process runs with', () => {
    const unit = readFileSync(path.join(root, 'deploy/systemd/pipdesk@.service'), 'utf8');
    expect(/^ExecStart=(.*)$/m.exec(unit)?.[1]).toBe(['/usr/bin/node', ...SERVER_NODE_FLAGS, 'server/dist/main.js'].join(' '));
  });
});
