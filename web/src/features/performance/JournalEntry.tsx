import { JOURNAL_NOTE_MAX_LENGTH, type JournalEntryDto } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button } from '../../components';
import { saveJournalEntry, storeSavedEntry } from './api';
import { JournalComments, JournalEntryHead } from './JournalEntryParts';
import { StarRating } from './StarRating';
import { TagEditor } from './TagEditor';

/** The journal's failure text when the server gives none (docs/screens.md#error-texts order). */
export const JOURNAL_SAVE_FAILED = 'Failed to save the journal entry';
export const JOURNAL_SAVED_TEXT = 'Saved';

interface Draft {
  note: string;
  tags: readonly string[];
  rating: number | null;
}

const draftOf = (e: JournalEntryDto): Draft => ({ note: e.note, tags: e.tags, rating: e.rating });
const sameDraft = (a: Draft, b: Draft) =>
  a.note === b.note && a.rating === b.rating && a.tags.length === b.tags.length && a.tags.every((t, i) => t === b.tags[i]);

export interface JournalEntryProps {
  entry: JournalEntryDto;
  /** Price decimals of a pair. */
  digits: (symbol: string) => number;
  /** The trader's own tags, for the suggestions. */
  knownTags: readonly string[];
  /** Called with the stored entry after a save. */
  onSaved?: (entry: JournalEntryDto) => void;
}

/**
 * One closed trade in the journal: what happened (time, pair, side, lots, price, realized P&L),
 * the trader's note, tags and stars, edited in place and saved together with one PUT (the
 * entry is stored whole or not at all), and the instructors' comments, read-only.
 */
export function JournalEntry({ entry, digits, knownTags, onSaved }: JournalEntryProps) {
  const { trade } = entry;
  const queryClient = useQueryClient();
  const headingId = useId();
  const noteId = useId();
  const [state, setState] = useState(() => ({ saved: draftOf(entry), draft: draftOf(entry) }));

  // The entry changed on the server (a save, a reload): follow it unless the trader has unsaved edits.
  const fromServer = draftOf(entry);
  let { saved, draft } = state;
  if (!sameDraft(saved, fromServer)) {
    draft = sameDraft(draft, saved) ? fromServer : draft;
    saved = fromServer;
    setState({ saved, draft });
  }
  const dirty = !sameDraft(draft, saved);

  const save = useMutation({
    mutationFn: (d: Draft) => saveJournalEntry(trade.id, { note: d.note, tags: [...d.tags], rating: d.rating }),
    onSuccess: (stored) => {
      storeSavedEntry(queryClient, stored);
      setState({ saved: draftOf(stored), draft: draftOf(stored) });
      onSaved?.(stored);
    },
  });

  const edit = (change: Partial<Draft>) => {
    if (save.isSuccess || save.isError) save.reset();
    setState((s) => ({ ...s, draft: { ...s.draft, ...change } }));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (dirty && !save.isPending) save.mutate(draft);
  };

  return (
    <article className="journal-entry" aria-labelledby={headingId} data-testid={`journal-entry-${trade.id}`}>
      <JournalEntryHead entry={entry} headingId={headingId} digits={digits(trade.fx_pair_symbol)} />

      <form className="journal-entry__form" onSubmit={submit} aria-label={`Journal entry of trade ${trade.id}`}>
        <div className="field journal-entry__note">
          <label className="field__label" htmlFor={noteId}>
            Note
          </label>
          <textarea
            id={noteId}
            className="input journal-entry__textarea"
            value={draft.note}
            maxLength={JOURNAL_NOTE_MAX_LENGTH}
            rows={2}
            placeholder="Why you took it, how you managed it, what you would do again"
            aria-describedby={`${noteId}-count`}
            onChange={(e) => edit({ note: e.target.value })}
          />
          <p className="field__hint" id={`${noteId}-count`}>
            {draft.note.length.toLocaleString('en-US')} / {JOURNAL_NOTE_MAX_LENGTH.toLocaleString('en-US')} characters
          </p>
        </div>
        <TagEditor label="Tags" tags={draft.tags} known={knownTags} onChange={(tags) => edit({ tags })} />
        <StarRating label="Rating" value={draft.rating} onChange={(rating) => edit({ rating })} />
        <div className="journal-entry__actions">
          <Button type="submit" size="sm" variant="primary" disabled={!dirty} busy={save.isPending}>
            {save.isPending ? 'Saving...' : 'Save'}
          </Button>
          {dirty && !save.isPending && (
            <Button size="sm" variant="ghost" onClick={() => setState((s) => ({ ...s, draft: s.saved }))}>
              Discard changes
            </Button>
          )}
          <span className="journal-entry__status" role="status">
            {save.isSuccess && !dirty ? JOURNAL_SAVED_TEXT : ''}
          </span>
        </div>
        {save.isError && <Alert tone="error">{errorMessage(save.error, JOURNAL_SAVE_FAILED)}</Alert>}
      </form>

      <JournalComments comments={entry.comments} />
    </article>
  );
}
