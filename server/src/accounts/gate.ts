import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import { accountParam } from '../http/operation-route.js';

/** Owners remembered (an account never changes owner); past this many the oldest are forgotten. */
const OWNERS_KEPT = 50_000;

/**
 * The check behind `?account=` (docs/accounts.md#choosing-the-account): after sign-in, a call whose
 * contract entry takes `account` and names one gets on only when the account is the caller's;
 * another's, or none, is 404 `ACCOUNT_NOT_FOUND`, whatever the call. Handlers then trust the id.
 * An account's owner never changes, so owners once read are kept in memory (bounded): a trader
 * on a challenge account does not pay a read per order for it.
 */
export function createAccountGate(db: Db) {
  const owners = new Map<number, number>();
  const ownerOf = async (accountId: number): Promise<number | undefined> => {
    const known = owners.get(accountId);
    if (known !== undefined) return known;
    const row = await db.kysely.selectFrom('trading_accounts').select('user_id').where('id', '=', accountId).executeTakeFirst();
    if (!row) return undefined;
    if (owners.size >= OWNERS_KEPT) owners.delete(owners.keys().next().value as number);
    owners.set(accountId, Number(row.user_id));
    return Number(row.user_id);
  };
  /** Checks the named account of a signed-in request (`request.auth` set). */
  const check = async (request: FastifyRequest): Promise<void> => {
    // The academy's student calls check the account against the student, after the caller's scope.
    if (request.routeOptions.config.operation?.account !== true) return;
    const accountId = accountParam(request);
    if (accountId === undefined) return;
    if ((await ownerOf(accountId)) !== request.auth.userId) throw errors.accountNotFound();
  };
  return {
    check,
    /** The account's owner (undefined: no such account), remembered as the check remembers it. */
    ownerOf,
    /** `authenticate` followed by the check: what the routes of signed-in calls run first. */
    gated(authenticate: preHandlerAsyncHookHandler): preHandlerAsyncHookHandler {
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        await authenticate.call(this, request, reply);
        await check(request);
      };
    },
  };
}
