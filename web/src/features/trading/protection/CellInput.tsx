import { type KeyboardEvent, type Ref, useId } from 'react';
import { Input } from '../../../components';

export interface CellInputProps {
  /** The accessible name ("Stop loss, EURUSD position"): a table cell has no room for a visible label. */
  label: string;
  value: string;
  onChange(value: string): void;
  /** A validation message under the input; marks it invalid. */
  problem?: string | undefined;
  /** Enter saves, Escape discards (the row editor's keys). */
  onEnter?(): void;
  onEscape?(): void;
  inputMode?: 'decimal' | 'numeric';
  placeholder?: string;
  inputRef?: Ref<HTMLInputElement>;
  disabled?: boolean;
}

/** A small input in a table cell, with its problem written under it and tied to it for screen readers. */
export function CellInput({
  label,
  value,
  onChange,
  problem,
  onEnter,
  onEscape,
  inputMode = 'decimal',
  placeholder,
  inputRef,
  disabled,
}: CellInputProps) {
  const id = useId();
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && onEnter) {
      event.preventDefault();
      onEnter();
    } else if (event.key === 'Escape' && onEscape) {
      event.preventDefault();
      onEscape();
    }
  };
  return (
    <div className="cell-input">
      <Input
        ref={inputRef}
        className="cell-input__control"
        type="text"
        inputMode={inputMode}
        autoComplete="off"
        aria-label={label}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {problem && (
        <span className="cell-input__problem" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  );
}
