import type { TradingServerMessageMap, TradingServerMessageType } from '@pipdesk/contract';

/**
 * Encodes a /ws/trading/ message (the contract's typed map, docs/api.md#trading-socket) once as a UTF-8 frame,
 * so fan-out to many sockets does not re-serialize or re-encode it.
 */
export function encodeMessage<K extends TradingServerMessageType>(type: K, payload: TradingServerMessageMap[K]): Buffer {
  return Buffer.from(JSON.stringify({ type, ...payload }));
}
