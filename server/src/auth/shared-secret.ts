import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import * as repo from './repo.js';

const JWT = 'jwt';

/**
 * The secret that signs tokens (docs/operations.md#tokens-and-sessions). `JWT_SECRET` wins when
 * set. Otherwise the database holds one generated secret for every node: the first node to start
 * stores its own candidate (the data directory's `jwt-secret`, so an existing single-node install
 * keeps its tokens valid), and every node, that one included, signs with what the database holds.
 * Nodes share no disk, so a secret kept per node would make one node refuse another's tokens.
 */
export async function resolveJwtSecret(ctx: Pick<AppContext, 'config' | 'db' | 'clock'>): Promise<string> {
  const { config, db, clock } = ctx;
  if (!config.jwtSecretGenerated) return config.jwtSecret;
  const stored = await repo.findSecret(db.kysely, JWT);
  if (stored) return stored;
  await writeTransaction(db, (trx) => repo.insertSecretIfAbsent(trx, JWT, config.jwtSecret, clock.now()));
  const agreed = await repo.findSecret(db.kysely, JWT);
  if (!agreed) throw new Error('the shared JWT secret was stored but cannot be read back');
  return agreed;
}
