import type { KeyboardEvent } from 'react';
import { KIND_LABELS, type Nudge } from './geometry';
import type { ShownDrawing } from './primitive';

const NUDGE_KEYS: Readonly<Record<string, Nudge>> = {
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowLeft: 'left',
  ArrowRight: 'right',
};

/** A drawing in words: its kind, its text and its prices. */
export function describeDrawing(d: ShownDrawing, formatPrice: (price: number) => string): string {
  const prices = d.points.map((p) => formatPrice(p.price)).join(' → ');
  return d.kind === 'text' ? `${KIND_LABELS.text} “${d.text ?? ''}” at ${prices}` : `${KIND_LABELS[d.kind]} ${prices}`;
}

export interface DrawingsListProps {
  id: string;
  symbol: string;
  drawings: readonly ShownDrawing[];
  selectedId: number | null;
  onSelect: (id: number) => void;
  onNudge: (id: number, nudge: Nudge) => void;
  onDelete: (id: number) => void;
  formatPrice: (price: number) => string;
}

/**
 * The pair's drawings as a list, the keyboard's way to them (docs/screens.md#drawing-toolbar):
 * each entry selects its drawing; on a focused entry the arrow keys move it (a pip up or down, a
 * bar left or right) and Delete removes it.
 */
export function DrawingsList({ id, symbol, drawings, selectedId, onSelect, onNudge, onDelete, formatPrice }: DrawingsListProps) {
  const keyDown = (drawingId: number) => (e: KeyboardEvent) => {
    const nudge = NUDGE_KEYS[e.key];
    if (nudge) {
      e.preventDefault();
      onSelect(drawingId);
      onNudge(drawingId, nudge);
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      onDelete(drawingId);
    }
  };
  return (
    <div className="drawings-list" id={id}>
      <p className="drawings-list__hint" id={`${id}-hint`}>
        Arrow keys move the focused drawing; Delete removes it.
      </p>
      {drawings.length === 0 ? (
        <p className="drawings-list__empty">No drawings on {symbol}</p>
      ) : (
        <ul aria-label={`Drawings on ${symbol}`}>
          {drawings.map((d) => {
            const label = describeDrawing(d, formatPrice);
            return (
              <li key={d.id} className="drawings-list__item">
                <button
                  type="button"
                  className="drawings-list__select"
                  aria-pressed={d.id === selectedId}
                  aria-describedby={`${id}-hint`}
                  onClick={() => onSelect(d.id)}
                  onKeyDown={keyDown(d.id)}
                >
                  {label}
                </button>
                <button
                  type="button"
                  className="drawings-list__delete"
                  aria-label={`Delete ${label}`}
                  onClick={() => onDelete(d.id)}
                >
                  Delete
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
