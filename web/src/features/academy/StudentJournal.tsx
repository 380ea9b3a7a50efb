import { COMMENT_MAX_LENGTH, JOURNAL_PAGE_SIZE, type JournalEntryDto } from '@pipdesk/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Card, Pagination, Spinner } from '../../components';
import { JournalComments, JournalEntryHead } from '../performance/JournalEntryParts';
import { journalPaginationText } from '../performance/journalFilters';
import { ErrorBox } from '../trading';
import { academyKeys, commentOnTrade, fetchStudentJournal } from './api';

export const STUDENT_JOURNAL_FAILED = 'Failed to load the journal';
export const COMMENT_FAILED = 'Failed to add the comment';
export const NO_STUDENT_TRADES = 'No closed trades yet in this period.';

/**
 * The student's journal, read-only (their note, tags and stars as they wrote them), with the
 * instructors' comments and a box to add one on each trade (docs/screens.md#academy).
 */
export function StudentJournal({ studentId, digits }: { studentId: number; digits: (symbol: string) => number }) {
  const [page, setPage] = useState(1);
  const query = { page };
  const journal = useQuery({
    queryKey: academyKeys.studentPart(studentId, 'journal', query),
    queryFn: ({ signal }) => fetchStudentJournal(studentId, query, signal),
    placeholderData: keepPreviousData,
  });
  const count = journal.data?.count ?? 0;
  const totalPages = Math.max(1, Math.ceil(count / JOURNAL_PAGE_SIZE));
  const texts = journalPaginationText(page, count);
  return (
    <Card title="Trade Journal" aria-label="Trade Journal" className="journal-card">
      {journal.isError && !journal.data ? (
        <ErrorBox message={errorMessage(journal.error, STUDENT_JOURNAL_FAILED)} onRetry={() => void journal.refetch()} />
      ) : journal.isPending ? (
        <div className="perf-loading" role="status">
          <Spinner /> <span>Loading journal...</span>
        </div>
      ) : journal.data.results.length === 0 ? (
        <p className="perf-empty">{NO_STUDENT_TRADES}</p>
      ) : (
        <>
          <ol className="journal-list" aria-label="Closed trades">
            {journal.data.results.map((entry) => (
              <li key={entry.trade.id}>
                <StudentJournalEntry studentId={studentId} entry={entry} digits={digits} />
              </li>
            ))}
          </ol>
          <Pagination
            label="Journal pages"
            page={page}
            totalPages={totalPages}
            texts={texts}
            busy={journal.isPlaceholderData}
            onPage={setPage}
          />
        </>
      )}
    </Card>
  );
}

function StudentJournalEntry({
  studentId,
  entry,
  digits,
}: {
  studentId: number;
  entry: JournalEntryDto;
  digits: (symbol: string) => number;
}) {
  const { trade } = entry;
  const headingId = useId();
  return (
    <article className="journal-entry" aria-labelledby={headingId} data-testid={`journal-entry-${trade.id}`}>
      <JournalEntryHead entry={entry} headingId={headingId} digits={digits(trade.fx_pair_symbol)} />
      <dl className="student-note">
        <dt>Note</dt>
        <dd>{entry.note || '—'}</dd>
        <dt>Tags</dt>
        <dd>{entry.tags.length ? entry.tags.join(', ') : '—'}</dd>
        <dt>Rating</dt>
        <dd>{entry.rating === null ? '—' : `${entry.rating} of 5`}</dd>
      </dl>
      <JournalComments comments={entry.comments} />
      <CommentBox studentId={studentId} tradeId={trade.id} />
    </article>
  );
}

/** An instructor's comment on one trade: up to 2,000 characters, shown in the student's journal once sent. */
export function CommentBox({ studentId, tradeId }: { studentId: number; tradeId: number }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [text, setText] = useState('');
  const send = useMutation({
    mutationFn: () => commentOnTrade(studentId, tradeId, text.trim()),
    onSuccess: () => {
      setText('');
      void queryClient.invalidateQueries({ queryKey: academyKeys.studentPart(studentId, 'journal') });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() !== '' && !send.isPending) send.mutate();
  };
  return (
    <form className="comment-box" onSubmit={submit} aria-label={`Comment on trade ${tradeId}`}>
      <label className="field__label" htmlFor={id}>
        Comment
      </label>
      <textarea
        id={id}
        className="input"
        rows={2}
        maxLength={COMMENT_MAX_LENGTH}
        value={text}
        onChange={(e) => {
          if (send.isError || send.isSuccess) send.reset();
          setText(e.target.value);
        }}
        aria-describedby={`${id}-count`}
      />
      <p className="field__hint" id={`${id}-count`}>
        {text.length.toLocaleString('en-US')} / {COMMENT_MAX_LENGTH.toLocaleString('en-US')} characters
      </p>
      <Button type="submit" size="sm" variant="primary" disabled={text.trim() === ''} busy={send.isPending}>
        {send.isPending ? 'Sending...' : 'Add comment'}
      </Button>
      {send.isError && <Alert tone="error">{errorMessage(send.error, COMMENT_FAILED)}</Alert>}
    </form>
  );
}
