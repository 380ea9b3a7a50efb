import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Field, Input } from './Field';

export interface CommitOnPauseInputProps {
  label: string;
  /** The committed value (from the address): shown again whenever it changes from elsewhere. */
  value: string;
  /** Called with the trimmed text once typing pauses for `delayMs`, or at once on Enter. */
  onCommit: (value: string) => void;
  delayMs: number;
  /** The form's class. */
  className?: string;
  placeholder?: string;
  maxLength?: number;
  /** The id of a datalist of suggestions. */
  list?: string;
}

/**
 * A search box for a list's filter: typing waits `delayMs` before the list follows, so each
 * keystroke is not a request; Enter commits at once. It follows `value` when that changes from
 * elsewhere (Clear Filters, the back button).
 */
export function CommitOnPauseInput({
  label,
  value,
  onCommit,
  delayMs,
  className,
  placeholder,
  maxLength,
  list,
}: CommitOnPauseInputProps) {
  const [text, setText] = useState(value);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => commit.current(text.trim()), delayMs);
    return () => clearTimeout(timer);
  }, [text, value, delayMs]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() !== value) onCommit(text.trim());
  };
  return (
    <form onSubmit={submit} className={className}>
      <Field label={label}>
        <Input
          type="search"
          value={text}
          list={list}
          placeholder={placeholder}
          maxLength={maxLength}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setText(e.target.value)}
        />
      </Field>
    </form>
  );
}
