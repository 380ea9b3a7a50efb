import { formatPrice } from '@pipdesk/contract';
import { useEffect, useMemo, useState } from 'react';
import { errorMessage } from '../../../api';
import { type LineChangeResult, sendLineChange } from './api';
import { type ChartLine, parseLinePrice } from './lines';

/** A line shown away from its server price: proposed (dialog open) or saved (until the server's data shows it). */
interface Proposal {
  price: number;
  /** The line's version when the change was saved; null while only proposed. */
  savedFrom: string | null;
}

/** The confirmation in progress. */
export interface LineEdit {
  line: ChartLine;
  /** The new price as typed (pre-filled with the dragged price or the current one). */
  text: string;
  /** Why the typed price cannot be sent, once the trader tried. */
  fieldError: string | null;
  saving: boolean;
}

/** Shown when a refused change gave no text of its own. */
export const LINE_CHANGE_FAILED = 'Failed to move the line';

/**
 * Moving the chart's lines (docs/screens.md#chart-lines): a drop or the keyboard opens a
 * confirmation with the old and new price; Confirm PATCHes the protection or the order, Cancel
 * puts the line back. While the dialog is open the line shows the proposed price; after a save
 * it keeps the new price until the server's data carries it (a new version of the position or
 * order), so it never jumps back in between. A refusal puts it back and keeps the server's message.
 */
export function useLineEdits(lines: readonly ChartLine[], digits: number, onChanged?: (result: LineChangeResult) => void) {
  const [edit, setEdit] = useState<LineEdit | null>(null);
  const [proposals, setProposals] = useState<ReadonlyMap<string, Proposal>>(new Map());
  const [error, setError] = useState<{ title: string; message: string } | null>(null);

  // A saved proposal ends when the server's data for its line arrives (or the line is gone).
  useEffect(() => {
    setProposals((current) => {
      let changed = false;
      const next = new Map(current);
      for (const [id, p] of current) {
        const line = lines.find((l) => l.id === id);
        if (!line || (p.savedFrom !== null && (line.version !== p.savedFrom || line.price === p.price))) {
          next.delete(id);
          changed = true;
        }
      }
      return changed ? next : current;
    });
  }, [lines]);

  const setProposal = (id: string, proposal: Proposal | null) =>
    setProposals((current) => {
      const next = new Map(current);
      if (proposal) next.set(id, proposal);
      else next.delete(id);
      return next;
    });

  const begin = (line: ChartLine, price: number, preview: boolean) => {
    if (!line.target) return;
    setError(null);
    setEdit({ line, text: formatPrice(price, digits), fieldError: null, saving: false });
    if (preview) setProposal(line.id, { price, savedFrom: null });
  };

  /** The lines as drawn: each at its proposed or saved price when it has one. */
  const shown = useMemo(
    () =>
      lines.map((l) => {
        const p = proposals.get(l.id);
        return p ? { ...l, price: p.price } : l;
      }),
    [lines, proposals],
  );
  /** The line as the server has it (a shown line may carry a proposed price). */
  const held = (line: ChartLine) => lines.find((l) => l.id === line.id) ?? line;

  return {
    shown,
    edit,
    error,
    dismissError: () => setError(null),
    /** A line dropped at `price`: confirm the move. */
    dropped(shownLine: ChartLine, price: number) {
      const line = held(shownLine);
      if (price === line.price) return;
      begin(line, price, true);
    },
    /** The keyboard's way in: the dialog pre-filled with the line's current price. */
    open(shownLine: ChartLine) {
      const line = held(shownLine);
      begin(line, line.price, false);
    },
    /** The typed price follows on the chart as soon as it reads as a price. */
    type(text: string) {
      if (!edit) return;
      setEdit({ ...edit, text, fieldError: null });
      const parsed = parseLinePrice(text, digits);
      setProposal(edit.line.id, 'price' in parsed ? { price: parsed.price, savedFrom: null } : null);
    },
    cancel() {
      if (edit) setProposal(edit.line.id, null);
      setEdit(null);
    },
    async confirm() {
      if (!edit?.line.target || edit.saving) return;
      const parsed = parseLinePrice(edit.text, digits);
      if ('error' in parsed) {
        setEdit({ ...edit, fieldError: parsed.error });
        return;
      }
      const { line } = edit;
      setEdit({ ...edit, saving: true, fieldError: null });
      setProposal(line.id, { price: parsed.price, savedFrom: null });
      try {
        const result = await sendLineChange(line.target as NonNullable<ChartLine['target']>, parsed.price);
        setProposal(line.id, { price: parsed.price, savedFrom: line.version });
        setEdit(null);
        onChanged?.(result);
      } catch (err) {
        setProposal(line.id, null);
        setEdit(null);
        setError({ title: `${capitalize(line.name)} not moved`, message: errorMessage(err, LINE_CHANGE_FAILED) });
      }
    },
  };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
