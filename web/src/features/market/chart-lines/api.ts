import type { OrderDto, PositionDto } from '@pipdesk/contract';
import { modifyOrder, modifyPosition } from '../../trading';
import { type LineTarget, lineChange } from './lines';

/** What the server holds after a moved line was accepted. */
export type LineChangeResult = { kind: 'position'; position: PositionDto } | { kind: 'order'; order: OrderDto };

/**
 * Moves a line's target to `price` with the trading calls' own PATCH (docs/orders.md#the-calls);
 * a refusal throws the API client's ApiError with the server's text.
 */
export async function sendLineChange(target: LineTarget, price: number): Promise<LineChangeResult> {
  const change = lineChange(target, price);
  if (change.kind === 'position') {
    const { position } = await modifyPosition(target.id, change.body);
    return { kind: 'position', position };
  }
  const { order } = await modifyOrder(target.id, change.body);
  return { kind: 'order', order };
}
