import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipdesk-config-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The ConfigError loadConfig throws for `env` (fails the test when it does not throw one). */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ DATA_DIR: path.join(tmpdir(), 'pipdesk-never-created'), JWT_SECRET: 'x'.repeat(40), ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

describe('configuration (README.md#configuration)', () => {
  it('names the variable but never prints a secret or a password it was given', () => {
    const shortSecret = configError({ JWT_SECRET: 'hunter2-short-secret' });
    expect(shortSecret.variable).toBe('JWT_SECRET');
    expect(shortSecret.message).not.toContain('hunter2');

    const typo = configError({ DATABASE_URL: 'postgress://pipdesk:s3cret-pw@db.internal:5432/pipdesk' });
    expect(typo.variable).toBe('DATABASE_URL');
    expect(typo.message).toContain('db.internal');
    expect(typo.message).not.toContain('s3cret-pw');

    const redis = configError({ REDIS_URL: 'http://:r3dis-pw@cache:6379' });
    expect(redis.variable).toBe('REDIS_URL');
    expect(redis.message).not.toContain('r3dis-pw');
  });

  it('reads the chart history settings: days of one-minute candles, and of hourly ones (a year by default)', () => {
    const dflt = loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: 'x'.repeat(40) });
    expect(dflt).toMatchObject({ chartHistoryDays: 31, chartHourlyHistoryDays: 366 });
    const set = loadConfig({
      DATA_DIR: dataDir(),
      JWT_SECRET: 'x'.repeat(40),
      CHART_HISTORY_DAYS: '7',
      CHART_HOURLY_HISTORY_DAYS: '730',
    });
    expect(set).toMatchObject({ chartHistoryDays: 7, chartHourlyHistoryDays: 730 });
    for (const bad of ['-1', '1.5', 'year', '3661']) {
      expect(configError({ CHART_HOURLY_HISTORY_DAYS: bad }).variable).toBe('CHART_HOURLY_HISTORY_DAYS');
    }
    expect(configError({ CHART_HISTORY_DAYS: '401' }).variable).toBe('CHART_HISTORY_DAYS');
  });

  it('rejects NEWS_FEEDS entries that are not http(s) URLs, without printing their keys', () => {
    const bad = configError({ NEWS_FEEDS: 'https://ok.example/rss?key=abc123, feeds.example/rss' });
    expect(bad.variable).toBe('NEWS_FEEDS');
    expect(bad.message).not.toContain('abc123');
    expect(configError({ NEWS_FEEDS: 'file:///etc/passwd' }).variable).toBe('NEWS_FEEDS');
    expect(configError({ NEWS_FEEDS: 'javascript:alert(1)' }).variable).toBe('NEWS_FEEDS');
    const good = loadConfig({
      DATA_DIR: dataDir(),
      JWT_SECRET: 'x'.repeat(40),
      NEWS_FEEDS: ' https://a.example/rss.xml ,http://b.example/atom?x=1,',
    });
    expect(good.newsFeeds).toEqual(['https://a.example/rss.xml', 'http://b.example/atom?x=1']);
  });

  it('rejects ALLOWED_ORIGINS that could never match a browser Origin', () => {
    expect(configError({ ALLOWED_ORIGINS: 'https://trade.example.com/' }).variable).toBe('ALLOWED_ORIGINS');
    expect(configError({ ALLOWED_ORIGINS: 'trade.example.com' }).variable).toBe('ALLOWED_ORIGINS');
    const good = loadConfig({
      DATA_DIR: dataDir(),
      JWT_SECRET: 'x'.repeat(40),
      ALLOWED_ORIGINS: 'https://trade.example.com, http://localhost:5173',
    });
    expect(good.allowedOrigins).toEqual(['https://trade.example.com', 'http://localhost:5173']);
  });

  it('generates the JWT secret once, mode 0600, and refuses an unusable secret file', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: dir }).jwtSecret).toBe(first.jwtSecret);
    expect(readFileSync(path.join(dir, 'jwt-secret'), 'utf8').trim()).toBe(first.jwtSecret);

    const broken = dataDir();
    writeFileSync(path.join(broken, 'jwt-secret'), '\n');
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: broken });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('JWT_SECRET');
  });
});
