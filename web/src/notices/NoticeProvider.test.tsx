import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_NOTICES, NOTICE_TIMEOUT_MS, type NoticeInput, NoticeProvider, type Notices, useNotices } from './NoticeProvider';

let notices: Notices;

function Probe() {
  notices = useNotices();
  return null;
}

const region = () => screen.getByRole('region', { name: 'Notifications' });
const shown = () =>
  within(region())
    .queryAllByRole('listitem')
    .map((li) => li.textContent);
const fill: NoticeInput = {
  key: 'order:1:FILLED',
  tone: 'success',
  title: 'Order filled',
  text: 'BUY 0.10 EURUSD filled at 1.08734',
};

beforeEach(() => {
  vi.useFakeTimers();
  render(
    <NoticeProvider>
      <Probe />
    </NoticeProvider>,
  );
});

afterEach(() => {
  vi.useRealTimers();
});

describe('notices (docs/screens.md#notices)', () => {
  it('are toasts in one polite live region, each with a Dismiss button', () => {
    const list = within(region()).getByRole('list');
    expect(list).toHaveAttribute('aria-live', 'polite');
    act(() => notices.notify(fill));
    expect(shown()).toEqual(['Order filledBUY 0.10 EURUSD filled at 1.08734']);
    fireEvent.click(within(region()).getByRole('button', { name: 'Dismiss notification' }));
    expect(shown()).toEqual([]);
  });

  it('show one event once, however many messages report it', () => {
    act(() => notices.notify(fill));
    act(() => notices.notify(fill));
    expect(shown()).toHaveLength(1);
    fireEvent.click(within(region()).getByRole('button', { name: 'Dismiss notification' }));
    // A late duplicate (the socket after this tab's answer) stays quiet after a dismissal too.
    act(() => notices.notify(fill));
    expect(shown()).toHaveLength(0);
  });

  it('let this tab word its own event (replace), and drop one the page reports itself (settle)', () => {
    const rejected: NoticeInput = { key: 'order:2:REJECTED', tone: 'error', title: 'Order rejected', text: 'BUY 50.00 EURUSD' };
    act(() => notices.notify(rejected));
    act(() =>
      notices.notify({ key: 'order:2:REJECTED', tone: 'error', text: 'Error: Insufficient free margin' }, { replace: true }),
    );
    expect(shown()).toEqual(['Error: Insufficient free margin']);
    act(() => notices.settle('order:2:REJECTED'));
    expect(shown()).toEqual([]);
    act(() => notices.notify(rejected));
    expect(shown()).toEqual([]);
  });

  it(`let a fill go after ${NOTICE_TIMEOUT_MS / 1000} s (not while the pointer is on them); warnings and errors stay`, () => {
    act(() => notices.notify(fill));
    act(() => notices.notify({ tone: 'warning', title: 'Margin call', text: 'Margin level 95.50%' }));
    act(() => notices.notify({ tone: 'success', title: 'Take profit triggered', text: 'EURUSD', sticky: true }));
    fireEvent.mouseEnter(region());
    act(() => vi.advanceTimersByTime(NOTICE_TIMEOUT_MS * 2));
    expect(shown()).toHaveLength(3);
    fireEvent.mouseLeave(region());
    act(() => vi.advanceTimersByTime(NOTICE_TIMEOUT_MS - 1));
    expect(shown()).toHaveLength(3);
    act(() => vi.advanceTimersByTime(1));
    expect(shown()).toEqual(['Margin callMargin level 95.50%', 'Take profit triggeredEURUSD']);
    act(() => vi.advanceTimersByTime(10 * 60_000));
    expect(shown()).toHaveLength(2);
  });

  it(`keep at most ${MAX_NOTICES}, the oldest going first`, () => {
    for (let i = 1; i <= MAX_NOTICES + 2; i++) act(() => notices.notify({ tone: 'error', text: `notice ${i}` }));
    expect(shown()).toEqual(['notice 3', 'notice 4', 'notice 5', 'notice 6', 'notice 7']);
  });
});
