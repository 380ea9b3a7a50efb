import { CHART_RANGE_VALUES, chartDataQuerySchema, chartDataSchema, currentPricesSchema, pairPriceSchema } from '../market.js';
import { error, symbolParams, validation400 } from './answers.js';
import { defineOperation } from './define.js';

/** Pairs, prices and candles. */
export const marketOperations = {
  currentPrices: defineOperation({
    method: 'GET',
    path: '/api/trading/current-prices/',
    operationId: 'currentPrices',
    summary: 'The latest price of every active pair',
    tag: 'market',
    auth: true,
    account: true,
    writes: false,
    ok: { status: 200, description: 'Symbol → price.', data: currentPricesSchema },
  }),
  pairPrice: defineOperation({
    method: 'GET',
    path: '/api/trading/pair/:symbol/price/',
    operationId: 'pairPrice',
    summary: 'A pair’s latest price',
    tag: 'market',
    auth: true,
    account: true,
    writes: false,
    params: symbolParams,
    ok: { status: 200, description: 'The price.', data: pairPriceSchema },
    errors: {
      404: error('`PAIR_NOT_FOUND`.'),
      503: error('`UNAVAILABLE`: no price yet for the pair.'),
    },
  }),
  chartData: defineOperation({
    method: 'GET',
    path: '/api/trading/pair/:symbol/chart-data/',
    operationId: 'chartData',
    summary: 'Candles of mid prices, oldest first',
    description: `\`range\`: ${CHART_RANGE_VALUES.join(', ')} (docs/api.md#chart-data).`,
    tag: 'market',
    auth: true,
    account: true,
    writes: false,
    params: symbolParams,
    query: chartDataQuerySchema,
    ok: { status: 200, description: 'The candles.', data: chartDataSchema },
    errors: {
      400: validation400,
      404: error('`PAIR_NOT_FOUND`.'),
    },
  }),
} as const;
