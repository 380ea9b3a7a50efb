import { ORDER_STATUSES } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { IllegalOrderTransition, isTerminal, type OrderEvent, transition } from './order-status.js';

const EVENTS: OrderEvent[] = ['FILL', 'PARTIAL_FILL', 'REJECT', 'CANCEL', 'EXPIRE'];

describe('order status table', () => {
  it('takes a market order from PENDING to FILLED or REJECTED', () => {
    expect(transition('PENDING', 'FILL')).toBe('FILLED');
    expect(transition('PENDING', 'REJECT')).toBe('REJECTED');
  });

  it('lets a partially filled order fill, cancel or expire, but not be rejected', () => {
    expect(transition('PENDING', 'PARTIAL_FILL')).toBe('PARTIALLY_FILLED');
    expect(transition('PARTIALLY_FILLED', 'FILL')).toBe('FILLED');
    expect(transition('PARTIALLY_FILLED', 'CANCEL')).toBe('CANCELLED');
    expect(() => transition('PARTIALLY_FILLED', 'REJECT')).toThrow(IllegalOrderTransition);
  });

  it('never leaves a terminal status', () => {
    for (const status of ORDER_STATUSES) {
      if (!isTerminal(status)) continue;
      for (const event of EVENTS) expect(() => transition(status, event)).toThrow(`Order in status ${status} cannot ${event}`);
    }
    expect(ORDER_STATUSES.filter(isTerminal)).toEqual(['FILLED', 'CANCELLED', 'REJECTED', 'EXPIRED']);
  });
});
