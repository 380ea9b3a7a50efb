import type { PositionDto } from '@pipdesk/contract';
import { useEffect, useRef, useState } from 'react';
import { Button, type Column, DataTable, Num } from '../../components';
import { Link } from '../accounts';
import { SideBadge } from './badges';
import { formatLots, formatPnl, formatQuote, formatUsd } from './format';
import type { PriceMap } from './livePrices';
import { CellInput } from './protection/CellInput';
import { closeLotsProblem, type ProtectionField } from './protection/protectionRules';
import { useProtectionEditor } from './protection/useProtectionEditor';

export interface PositionsTableProps {
  positions: readonly PositionDto[];
  digits: (symbol: string) => number;
  /**
   * The trading actions: each row that is not FLAT gets Close with the lots to close (default
   * all; a smaller amount closes part), and its stop loss, take profit and trailing stop become
   * editable in place (docs/screens.md#positions-protection).
   */
  onClose?: (position: PositionDto, lots?: number) => void;
  closingId?: number | null;
  /** Live quotes: the protection editor checks against the price the position would close at. */
  prices?: PriceMap;
  /** Links each pair to its page (the dashboard). */
  linkPairs?: boolean;
  caption: string;
}

const PROTECTION_LABELS: Readonly<Record<ProtectionField, string>> = {
  stopLoss: 'stop loss',
  takeProfit: 'take profit',
  trailingStopPips: 'trailing stop',
};

const NO_PRICES: PriceMap = {};

/**
 * Open positions: pair, side, lots, entry and current price, unrealized P&L (coloured), margin,
 * and the position's protection (stop loss, take profit, trailing distance in pips).
 */
export function PositionsTable({
  positions,
  digits,
  onClose,
  closingId = null,
  prices = NO_PRICES,
  linkPairs = false,
  caption,
}: PositionsTableProps) {
  const editor = useProtectionEditor(prices, digits);
  // Lots typed in a row's "lots to close"; a row nobody typed in closes its whole size.
  const [closeLots, setCloseLots] = useState<Readonly<Record<number, string>>>({});
  const inputs = useRef(new Map<ProtectionField, HTMLInputElement>());
  const cells = useRef(new Map<string, HTMLButtonElement>());
  const lastEdited = useRef<{ id: number; field: ProtectionField } | null>(null);
  const actions = onClose !== undefined;
  const editing = editor.editing;

  // The field the trader picked takes the focus; when the editor closes, the focus goes back to its cell.
  const editingKey = editing ? `${editing.positionId}:${editing.focus}` : null;
  useEffect(() => {
    if (editingKey) {
      const field = editingKey.split(':')[1] as ProtectionField;
      inputs.current.get(field)?.focus();
      return;
    }
    const last = lastEdited.current;
    if (last) cells.current.get(`${last.id}:${last.field}`)?.focus();
  }, [editingKey]);

  // After a close (whole or part) the row's lots go back to its size.
  const wasClosing = useRef<number | null>(null);
  useEffect(() => {
    const done = wasClosing.current;
    wasClosing.current = closingId;
    if (done !== null && closingId === null) {
      setCloseLots((typed) => {
        const { [done]: _gone, ...rest } = typed;
        return rest;
      });
    }
  }, [closingId]);

  function protectionCell(p: PositionDto, field: ProtectionField, shown: string) {
    const what = `${PROTECTION_LABELS[field]}, ${p.fx_pair_symbol} position`;
    if (editing && editing.positionId === p.id) {
      const problems = editor.check(p)?.problems ?? {};
      return (
        <CellInput
          label={`${what[0]!.toUpperCase()}${what.slice(1)}`}
          value={editing.draft[field]}
          onChange={(value) => editor.update(field, value)}
          problem={problems[field]}
          onEnter={() => void editor.save(p)}
          onEscape={editor.discard}
          inputMode={field === 'trailingStopPips' ? 'numeric' : 'decimal'}
          placeholder={field === 'trailingStopPips' ? 'pips' : 'none'}
          disabled={editing.saving}
          inputRef={(el) => {
            if (el) inputs.current.set(field, el);
            else inputs.current.delete(field);
          }}
        />
      );
    }
    if (!actions || p.side === 'FLAT') return <Num>{shown}</Num>;
    return (
      <button
        type="button"
        className="protection-cell num"
        aria-label={`Edit ${what}: ${shown === '—' ? 'none' : shown}`}
        ref={(el) => {
          if (el) cells.current.set(`${p.id}:${field}`, el);
          else cells.current.delete(`${p.id}:${field}`);
        }}
        onClick={() => {
          lastEdited.current = { id: p.id, field };
          editor.start(p, field);
        }}
      >
        {shown}
      </button>
    );
  }

  const columns: Column<PositionDto>[] = [
    {
      key: 'pair',
      header: 'Pair',
      cell: (p) => (linkPairs ? <Link to={`/pair/${p.fx_pair_symbol}`}>{p.fx_pair_symbol}</Link> : p.fx_pair_symbol),
    },
    { key: 'side', header: 'Side', cell: (p) => <SideBadge side={p.side} /> },
    { key: 'lots', header: 'Lots', numeric: true, cell: (p) => formatLots(p.quantity) },
    {
      key: 'entry',
      header: 'Entry Price',
      numeric: true,
      cell: (p) => formatQuote(p.average_entry_price, digits(p.fx_pair_symbol)),
    },
    {
      key: 'current',
      header: 'Current Price',
      numeric: true,
      cell: (p) => formatQuote(p.current_price, digits(p.fx_pair_symbol)),
    },
    {
      key: 'pnl',
      header: 'Unrealized P&L',
      numeric: true,
      cell: (p) => (
        <Num signOf={p.unrealized_pnl} data-testid={`pnl-${p.id}`}>
          {formatPnl(p.unrealized_pnl)}
        </Num>
      ),
    },
    { key: 'margin', header: 'Margin', numeric: true, cell: (p) => formatUsd(p.margin_used) },
    {
      key: 'sl',
      header: 'Stop Loss',
      numeric: true,
      cell: (p) => protectionCell(p, 'stopLoss', formatQuote(p.stop_loss, digits(p.fx_pair_symbol))),
    },
    {
      key: 'tp',
      header: 'Take Profit',
      numeric: true,
      cell: (p) => protectionCell(p, 'takeProfit', formatQuote(p.take_profit, digits(p.fx_pair_symbol))),
    },
    {
      key: 'trailing',
      header: 'Trailing (pips)',
      numeric: true,
      cell: (p) => protectionCell(p, 'trailingStopPips', p.trailing_stop_pips === null ? '—' : String(p.trailing_stop_pips)),
    },
  ];
  if (onClose) {
    columns.push({
      key: 'action',
      header: <span className="sr-only">Action</span>,
      stickyEnd: true,
      cell: (p) => {
        if (p.side === 'FLAT') return null;
        if (editing && editing.positionId === p.id) {
          const check = editor.check(p);
          const blocked = !check || Object.keys(check.problems).length > 0;
          return (
            <div className="row-actions">
              {editing.serverError && (
                <span className="row-actions__error" role="alert">
                  {editing.serverError}
                </span>
              )}
              <Button
                size="sm"
                variant="primary"
                onClick={() => void editor.save(p)}
                disabled={blocked}
                busy={editing.saving}
                aria-label={`Save protection of ${p.fx_pair_symbol} position`}
              >
                {editing.saving ? 'Saving...' : 'Save'}
              </Button>
              <Button
                size="sm"
                variant="ghost"
                onClick={editor.discard}
                disabled={editing.saving}
                aria-label={`Discard protection changes of ${p.fx_pair_symbol} position`}
              >
                Discard
              </Button>
            </div>
          );
        }
        const size = formatLots(p.quantity);
        const lotsText = closeLots[p.id] ?? size;
        const problem = closeLotsProblem(lotsText, p.quantity);
        const lots = problem === null ? Number(lotsText) : undefined;
        return (
          <div className="row-actions">
            <CellInput
              label={`Lots to close, ${p.fx_pair_symbol} position`}
              value={lotsText}
              onChange={(value) => setCloseLots((typed) => ({ ...typed, [p.id]: value }))}
              problem={problem ?? undefined}
              onEnter={() => {
                if (problem === null && closingId === null) onClose(p, lots);
              }}
              disabled={closingId !== null}
            />
            <Button
              size="sm"
              variant="secondary"
              onClick={() => onClose(p, lots)}
              disabled={closingId !== null || problem !== null}
              busy={closingId === p.id}
              aria-label={closingId === p.id ? `Closing ${p.fx_pair_symbol} position` : `Close ${p.fx_pair_symbol} position`}
            >
              {closingId === p.id ? 'Closing...' : 'Close'}
            </Button>
          </div>
        );
      },
    });
  }
  return <DataTable columns={columns} rows={positions} rowKey={(p) => p.id} empty="No open positions" caption={caption} />;
}
