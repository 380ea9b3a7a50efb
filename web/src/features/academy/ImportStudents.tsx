import { MEMBERS_IMPORT_MAX, type MembersImportResponse } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, useId, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, DataTable } from '../../components';
import { saveBlob } from '../orders/exportCsv';
import { academyKeys, importMembers } from './api';
import { buildPreview, PASSWORDS_FILE, type PreviewRow, passwordsCsv, rowsToSend } from './importModel';

export const IMPORT_FAILED = 'Failed to import students';
export const PASSWORDS_ONCE_TEXT =
  'These temporary passwords are shown only this once: download them or copy them now. Each student must change theirs at first sign-in.';

/**
 * Importing students into a cohort from CSV (docs/screens.md#academy): paste or choose a file,
 * check the preview (an error per line; lines with an error are not sent), import, then see the
 * new students' temporary passwords once, with a CSV download.
 */
export function ImportStudents({ cohortId }: { cohortId: number }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [result, setResult] = useState<{ answer: MembersImportResponse; lines: number[] } | null>(null);
  const textId = useId();
  const preview = buildPreview(text);
  const { students, lines } = rowsToSend(preview);
  const send = useMutation({
    mutationFn: () => importMembers(cohortId, students),
    onSuccess: (answer) => {
      setResult({ answer, lines });
      setText('');
      void queryClient.invalidateQueries({ queryKey: academyKeys.all });
    },
  });

  const chooseFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (file) setText(await file.text());
    e.target.value = '';
  };

  if (result) return <ImportResult {...result} onDone={() => setResult(null)} />;

  const withErrors = preview.rows.filter((r) => r.error !== null).length;
  return (
    <div className="import">
      <p className="import__hint">
        One student a line: <code>email,full_name</code> (a header line is optional). Existing traders are added; new ones get an
        account at the cohort's balance and leverage.
      </p>
      <div className="field">
        <label className="field__label" htmlFor={textId}>
          Students CSV
        </label>
        <textarea
          id={textId}
          className="input import__text"
          rows={6}
          value={text}
          spellCheck={false}
          placeholder={'email,full_name\nada@example.com,Ada Lovelace'}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <label className="import__file">
        Or choose a CSV file <input type="file" accept=".csv,text/csv,text/plain" onChange={(e) => void chooseFile(e)} />
      </label>
      {preview.rows.length > 0 && (
        <section aria-label="Import preview" className="import__preview">
          <p>
            {students.length} to import
            {withErrors > 0 && `, ${withErrors} with an error (not sent)`}
          </p>
          <DataTable<PreviewRow>
            caption="Import preview"
            rows={preview.rows}
            rowKey={(r) => r.line}
            columns={[
              { key: 'line', header: 'Line', numeric: true, cell: (r) => r.line },
              { key: 'email', header: 'E-mail', cell: (r) => r.email },
              { key: 'name', header: 'Name', cell: (r) => r.full_name },
              {
                key: 'error',
                header: 'Error',
                cell: (r) => (r.error ? <span className="import__error">{r.error}</span> : 'OK'),
              },
            ]}
          />
        </section>
      )}
      {preview.tooMany && <Alert tone="error">At most {MEMBERS_IMPORT_MAX} students in one import: split the file.</Alert>}
      {send.isError && <Alert tone="error">{errorMessage(send.error, IMPORT_FAILED)}</Alert>}
      <Button
        variant="primary"
        disabled={students.length === 0 || preview.tooMany}
        busy={send.isPending}
        onClick={() => send.mutate()}
      >
        {send.isPending ? 'Importing...' : `Import ${students.length} ${students.length === 1 ? 'student' : 'students'}`}
      </Button>
    </div>
  );
}

function ImportResult({ answer, lines, onDone }: { answer: MembersImportResponse; lines: number[]; onDone: () => void }) {
  // The server numbers the rows it was sent from 1; the admin knows them by their line in the file.
  const lineOf = (row: number) => lines[row - 1] ?? row;
  const download = () => saveBlob(new Blob([passwordsCsv(answer)], { type: 'text/csv;charset=utf-8' }), PASSWORDS_FILE);
  return (
    <section className="import" aria-label="Import result">
      <p role="status">
        {answer.created.length} created, {answer.added.length} added, {answer.errors.length} not imported
      </p>
      {answer.created.length > 0 && (
        <>
          <Alert tone="warning">{PASSWORDS_ONCE_TEXT}</Alert>
          <DataTable
            caption="Temporary passwords"
            rows={answer.created}
            rowKey={(c) => c.row}
            columns={[
              { key: 'email', header: 'E-mail', cell: (c) => c.email },
              {
                key: 'password',
                header: 'Temporary password',
                cell: (c) => <code data-testid={`temporary-password-${c.email}`}>{c.temporary_password}</code>,
              },
            ]}
          />
          <Button variant="secondary" onClick={download}>
            Download passwords (CSV)
          </Button>
        </>
      )}
      {answer.added.length > 0 && <p>Added existing traders: {answer.added.map((a) => a.email).join(', ')}</p>}
      {answer.errors.length > 0 && (
        <DataTable
          caption="Rows not imported"
          rows={answer.errors}
          rowKey={(e) => e.row}
          columns={[
            { key: 'line', header: 'Line', numeric: true, cell: (e) => lineOf(e.row) },
            { key: 'email', header: 'E-mail', cell: (e) => e.email },
            { key: 'error', header: 'Error', cell: (e) => <span className="import__error">{e.error}</span> },
          ]}
        />
      )}
      <Button variant="primary" onClick={onDone}>
        Done
      </Button>
    </section>
  );
}
