import { AccountSelection } from './accountSelection';
import { ApiClient } from './client';
import { TokenStore } from './tokens';

export { AccountSelection, parseAccountId } from './accountSelection';
export type { ApiLogEntry } from './apiLog';
export { API_LOG_LIMIT, readApiLog } from './apiLog';
export type { CallArgs, CallOptions, DownloadOptions, HttpMethod, QueryValue, RequestOptions, Schema } from './client';
export { ApiClient, anyAnswer, callPath, enveloped, queryString } from './client';
export { ApiError, errorMessage, NETWORK_FAILURE_TEXT, NetworkError } from './errors';
export type { StoredTokens, TokenChange } from './tokens';
export { TokenStore } from './tokens';

/** The one token store of the app. */
export const tokenStore = new TokenStore();

/**
 * The account the app acts on (docs/screens.md#account-switcher), copied from the URL by the
 * accounts feature; the API client, the query cache's keys and the trading socket read it.
 */
export const accountSelection = new AccountSelection();

/**
 * The one API client of the app. Feature code calls the contract's entries through react-query, e.g.
 * `useQuery({ queryKey: ['platform-data'], queryFn: ({ signal }) => api.call(tradingOperations.platformData, {}, { signal }) })`:
 * through each area's map, never the aggregate `ops`, so a screen loads only the schemas of the calls it makes.
 */
export const api = new ApiClient(tokenStore, '/api', accountSelection);
