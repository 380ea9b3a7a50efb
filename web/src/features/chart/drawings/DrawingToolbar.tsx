import { DRAWING_KINDS, DRAWING_TEXT_MAX, type DrawingKind } from '@pipdesk/contract';
import { type FormEvent, useId, useState } from 'react';
import { Button } from '../../../components';
import { KIND_LABELS } from './geometry';

/** The short mark on each tool's button; the button's name is the kind's full label. */
const TOOL_MARKS: Readonly<Record<DrawingKind, string>> = {
  hline: '—',
  trend: '╱',
  ray: '↗',
  rect: '▭',
  fib: 'Fib',
  text: 'T',
};

export interface DrawingToolbarProps {
  tool: DrawingKind | null;
  onTool: (tool: DrawingKind | null) => void;
  /** The selected drawing can be deleted. */
  canDelete: boolean;
  onDelete: () => void;
  listOpen: boolean;
  onToggleList: () => void;
  count: number;
  listId: string;
}

/**
 * The drawing tools (docs/screens.md#drawing-toolbar): one button per kind (pressed while it is
 * the tool in hand; pressed again puts it down), Delete for the selected drawing, and the
 * Drawings button that opens the pair's list.
 */
export function DrawingToolbar({
  tool,
  onTool,
  canDelete,
  onDelete,
  listOpen,
  onToggleList,
  count,
  listId,
}: DrawingToolbarProps) {
  return (
    <div className="drawing-toolbar" role="toolbar" aria-label="Drawing tools">
      {DRAWING_KINDS.map((kind) => (
        <button
          key={kind}
          type="button"
          className="drawing-toolbar__tool"
          aria-pressed={tool === kind}
          aria-label={KIND_LABELS[kind]}
          title={KIND_LABELS[kind]}
          onClick={() => onTool(tool === kind ? null : kind)}
        >
          <span aria-hidden="true">{TOOL_MARKS[kind]}</span>
        </button>
      ))}
      <button
        type="button"
        className="drawing-toolbar__tool"
        aria-label="Delete drawing"
        title="Delete the selected drawing (Delete key)"
        disabled={!canDelete}
        onClick={onDelete}
      >
        <span aria-hidden="true">✕</span>
      </button>
      <button
        type="button"
        className="drawing-toolbar__tool drawing-toolbar__list"
        aria-expanded={listOpen}
        aria-controls={listId}
        onClick={onToggleList}
      >
        Drawings{count > 0 ? ` (${count})` : ''}
      </button>
    </div>
  );
}

/** What the text tool asks for once its point is placed. */
export function NoteForm({ onSave, onCancel, busy }: { onSave: (text: string) => void; onCancel: () => void; busy: boolean }) {
  const [text, setText] = useState('');
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const note = text.trim();
    if (note) onSave(note);
  };
  return (
    <form className="drawing-note-form" aria-label="Text note" onSubmit={submit}>
      <label htmlFor={id}>Note text</label>
      <input
        id={id}
        // biome-ignore lint/a11y/noAutofocus: the trader just clicked the chart to write here; the note is what comes next
        autoFocus
        value={text}
        maxLength={DRAWING_TEXT_MAX}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
        }}
      />
      <div className="drawing-note-form__actions">
        <Button type="submit" size="sm" variant="primary" disabled={!text.trim()} busy={busy}>
          Save note
        </Button>
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
