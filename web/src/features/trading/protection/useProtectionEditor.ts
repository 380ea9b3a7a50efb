import type { PairPageDto, PlatformDataDto, PositionDto } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, errorMessage } from '../../../api';
import { useNotices } from '../../../notices/NoticeProvider';
import { formatQuote } from '../format';
import type { PriceMap } from '../livePrices';
import { modifyPosition, reloadTradingData, tradingKeys } from '../queries';
import {
  checkProtection,
  type ProtectionCheck,
  type ProtectionDraft,
  type ProtectionField,
  protectionDraftOf,
} from './protectionRules';

/** What a failed protection change says when the server gives no reason. */
export const PROTECTION_TEXT = {
  failed: 'Failed to update protection',
  saved: 'Protection updated',
} as const;

export interface ProtectionEditing {
  positionId: number;
  draft: ProtectionDraft;
  /** The field the trader asked to edit: it takes the focus. */
  focus: ProtectionField;
  /** The server's 400, shown in the row until the next change. */
  serverError: string | null;
  saving: boolean;
}

/** "EURUSD: stop loss 1.19000, take profit none, trailing stop 20 pips". */
export function describeProtection(position: PositionDto, digits: number): string {
  const price = (v: number | null) => (v === null ? 'none' : formatQuote(v, digits));
  const trailing = position.trailing_stop_pips === null ? 'none' : `${position.trailing_stop_pips} pips`;
  return `${position.fx_pair_symbol}: stop loss ${price(position.stop_loss)}, take profit ${price(position.take_profit)}, trailing stop ${trailing}`;
}

function replacePosition(positions: PositionDto[], position: PositionDto): PositionDto[] {
  return positions.map((p) => (p.id === position.id ? { ...p, ...position } : p));
}

/**
 * Editing a position's protection in place (docs/screens.md#positions-protection): one row at a
 * time, checked as the server checks it against the live closing price (a long's bid, a
 * short's ask), sent as PATCH trading/positions/{id}/ with only what changed (an emptied field
 * clears it). The server's 400 stays in the row; any other failure is a notice.
 */
export function useProtectionEditor(prices: PriceMap, digits: (symbol: string) => number) {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const [editing, setEditing] = useState<ProtectionEditing | null>(null);

  const closingPriceOf = (position: PositionDto): number | null => {
    const quote = prices[position.fx_pair_symbol];
    if (quote) return position.quantity > 0 ? quote.bid : quote.ask;
    return position.current_price;
  };

  function check(position: PositionDto): ProtectionCheck | null {
    if (!editing || editing.positionId !== position.id) return null;
    return checkProtection(position, editing.draft, digits(position.fx_pair_symbol), closingPriceOf(position));
  }

  function start(position: PositionDto, focus: ProtectionField) {
    if (editing?.saving) return;
    setEditing({
      positionId: position.id,
      draft: protectionDraftOf(position, digits(position.fx_pair_symbol)),
      focus,
      serverError: null,
      saving: false,
    });
  }

  function update(field: ProtectionField, value: string) {
    setEditing((e) => (e ? { ...e, draft: { ...e.draft, [field]: value }, serverError: null } : e));
  }

  function discard() {
    setEditing((e) => (e?.saving ? e : null));
  }

  async function save(position: PositionDto) {
    const result = check(position);
    if (!editing || editing.saving || !result || Object.keys(result.problems).length > 0) return;
    if (result.change === null) {
      setEditing(null);
      return;
    }
    setEditing({ ...editing, saving: true, serverError: null });
    try {
      const answer = await modifyPosition(position.id, result.change);
      const updated = answer.position;
      queryClient.setQueryData<PlatformDataDto>(tradingKeys.platformData, (d) =>
        d ? { ...d, open_positions: replacePosition(d.open_positions, updated) } : d,
      );
      queryClient.setQueriesData<PairPageDto>({ queryKey: tradingKeys.pairs }, (d) =>
        d ? { ...d, positions: replacePosition(d.positions, updated) } : d,
      );
      setEditing(null);
      notices.notify({
        key: `position:${updated.id}:PROTECTION:${updated.updated_at}`,
        tone: 'success',
        title: PROTECTION_TEXT.saved,
        text: describeProtection(updated, digits(updated.fx_pair_symbol)),
      });
      void reloadTradingData(queryClient);
    } catch (err) {
      const message = errorMessage(err, PROTECTION_TEXT.failed);
      if (err instanceof ApiError && err.status === 400) {
        // The market moved, or a rule the form does not know: the trader fixes the values in place.
        setEditing((e) => (e ? { ...e, saving: false, serverError: message } : e));
        return;
      }
      setEditing(null);
      notices.notify({ tone: 'error', title: PROTECTION_TEXT.failed, text: message });
      void reloadTradingData(queryClient);
    }
  }

  return { editing, check, start, update, discard, save };
}
