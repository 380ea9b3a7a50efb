// Types of scripts/cluster-lib.mjs for the TypeScript that imports it (server/src/cluster/).
import type { ChildProcess } from 'node:child_process';

export const root: string;
export const MAIN_JS: string;
export const NGINX_PROXY_CONF: string;

export function findNginx(): string | undefined;
export function ensureNginx(options?: { log?: (line: string) => void }): string | undefined;
export function freePort(host?: string): Promise<number>;
export function databaseUrlInSchema(base: string, schema: string): string;
export function prepareSchema(databaseUrl: string, schema: string, options?: { reset?: boolean }): Promise<void>;
export function renderNginxConfig(options: { prefix: string; listen: string; nodes: string[] }): string;

export interface ClusterNginx {
  process: ChildProcess;
  url: string;
  conf: string;
  output(): string;
  stop(): Promise<void>;
}

export function startNginx(options: {
  nginx?: string | undefined;
  prefix: string;
  host?: string;
  port: number;
  nodes: string[];
}): Promise<ClusterNginx>;

export interface ClusterNode {
  name: string;
  process: ChildProcess;
  /** Where the node itself listens (not through nginx). */
  url: string;
  stdout(): string;
  output(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export function startNode(options: {
  name: string;
  env: Record<string, string>;
  timeoutMs?: number;
  onOutput?: (text: string) => void;
}): Promise<ClusterNode>;

export interface Cluster {
  /** nginx's address: any node behind it. */
  url: string;
  nodes: ClusterNode[];
  nginx: ClusterNginx;
  stop(): Promise<void>;
}

export function startCluster(options: {
  nodes: number;
  dir: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  port?: number | undefined;
  nginx?: string | undefined;
  env?: Record<string, string>;
  onOutput?: (node: number, text: string) => void;
}): Promise<Cluster>;
/** V8 flags every server process runs with (scripts/lib.mjs, docs/operations.md#the-node-process). */
export const SERVER_NODE_FLAGS: readonly string[];
