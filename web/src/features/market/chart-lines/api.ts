import { modifyOrderResponseSchema, modifyPositionResponseSchema, type OrderDto, type PositionDto } from '@pipdesk/contract';
import { api, enveloped } from '../../../api';
import type { LineChange } from './lines';

/** What the server holds after a moved line was accepted. */
export type LineChangeResult = { kind: 'position'; position: PositionDto } | { kind: 'order'; order: OrderDto };

/** Sends a moved line's change (docs/orders.md#the-calls); a refusal throws the API client's ApiError with the server's text. */
export async function sendLineChange(change: LineChange): Promise<LineChangeResult> {
  if (change.kind === 'position') {
    const { position } = await api.request(change.path, {
      method: 'PATCH',
      body: change.body,
      schema: enveloped(modifyPositionResponseSchema),
    });
    return { kind: 'position', position };
  }
  const { order } = await api.request(change.path, {
    method: 'PATCH',
    body: change.body,
    schema: enveloped(modifyOrderResponseSchema),
  });
  return { kind: 'order', order };
}
