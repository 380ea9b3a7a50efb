import { JOURNAL_MAX_TAGS, JOURNAL_TAG_MAX_LENGTH } from '@pipdesk/contract';
import { type KeyboardEvent, useId, useState } from 'react';
import { CloseIcon } from '../../components';
import { addTag, tagSuggestions } from './tags';

export interface TagEditorProps {
  tags: readonly string[];
  onChange: (tags: readonly string[]) => void;
  /** The trader's own tags, offered as suggestions. */
  known: readonly string[];
  /** Names the field ("Tags"). */
  label: string;
  disabled?: boolean;
}

/**
 * Tags as chips: each with a remove button, a field that adds one on Enter or a comma, and the
 * trader's own tags as suggestion buttons (every part a button or a field, so the keyboard
 * reaches all of it).
 */
export function TagEditor({ tags, onChange, known, label, disabled = false }: TagEditorProps) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const hintId = useId();
  const full = tags.length >= JOURNAL_MAX_TAGS;
  const suggestions = full ? [] : tagSuggestions(known, tags, typed);

  const add = (tag: string) => {
    const next = addTag(tags, tag);
    if (next !== tags) onChange(next);
    setTyped('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      // Enter would submit the entry's form: here it only adds the tag.
      e.preventDefault();
      if (typed.trim() !== '') add(typed);
    } else if (e.key === 'Backspace' && typed === '' && tags.length > 0) {
      onChange(tags.slice(0, -1));
    }
  };

  return (
    <div className="tag-editor">
      <label className="field__label" htmlFor={inputId}>
        {label}
      </label>
      {tags.length > 0 && (
        <ul className="tag-chips" aria-label={`Chosen ${label.toLowerCase()}`}>
          {tags.map((t) => (
            <li key={t} className="tag-chip">
              <span>{t}</span>
              <button
                type="button"
                className="tag-chip__remove"
                aria-label={`Remove tag ${t}`}
                disabled={disabled}
                onClick={() => onChange(tags.filter((x) => x !== t))}
              >
                <CloseIcon />
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        id={inputId}
        className="input tag-editor__input"
        value={typed}
        maxLength={JOURNAL_TAG_MAX_LENGTH}
        placeholder={full ? '' : 'Add a tag, then Enter'}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled || full}
        aria-describedby={hintId}
        onChange={(e) => setTyped(e.target.value.replace(/,/g, ''))}
        onKeyDown={onKeyDown}
        onBlur={() => {
          if (typed.trim() !== '') add(typed);
        }}
      />
      <p className="field__hint" id={hintId}>
        {full
          ? `${JOURNAL_MAX_TAGS} tags at most: remove one to add another.`
          : `Up to ${JOURNAL_MAX_TAGS} tags of ${JOURNAL_TAG_MAX_LENGTH} characters.`}
      </p>
      {suggestions.length > 0 && (
        <ul className="tag-suggestions" aria-label="Your tags">
          {suggestions.map((t) => (
            <li key={t}>
              <button
                type="button"
                className="tag-chip tag-chip--suggestion"
                aria-label={`Add tag ${t}`}
                disabled={disabled}
                // Keeps the field's blur from adding the half-typed text before this tag.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => add(t)}
              >
                + {t}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
