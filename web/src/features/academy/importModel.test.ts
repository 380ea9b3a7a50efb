import { describe, expect, it } from 'vitest';
import { parseCsv, toCsv } from './csv';
import { buildPreview, passwordsCsv, rowsToSend } from './importModel';

describe('CSV (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, and skips blank lines', () => {
    const text = '\uFEFFemail,full_name\r\n"a@x.test","Lovelace, Ada"\n\nb@x.test,"Bea ""B"" Smith"\r\nc@x.test,"two\nlines"';
    expect(parseCsv(text)).toEqual([
      ['email', 'full_name'],
      ['a@x.test', 'Lovelace, Ada'],
      ['b@x.test', 'Bea "B" Smith'],
      ['c@x.test', 'two\nlines'],
    ]);
  });

  it('writes what it reads back', () => {
    const rows = [
      ['email', 'temporary_password'],
      ['a@x.test', 'p,"q"'],
      ['b@x.test', '-=start'],
    ];
    const text = toCsv(rows);
    expect(text).toBe('email,temporary_password\r\na@x.test,"p,""q"""\r\nb@x.test,-=start\r\n');
    expect(parseCsv(text)).toEqual(rows);
  });
});

describe('the import preview', () => {
  it('gives each line its own error and sends only the good lines', () => {
    const preview = buildPreview(
      [
        'email,full_name',
        'ada@school.test,Ada Lovelace',
        ',No Address',
        'not-an-address,Someone',
        'ADA@school.test,Ada Again',
        'bea@school.test,',
        `cleo@school.test,${'x'.repeat(201)}`,
      ].join('\n'),
    );
    expect(preview.rows.map((r) => [r.line, r.error])).toEqual([
      [2, null],
      [3, 'No e-mail address'],
      [4, 'Not an e-mail address: not-an-address'],
      [5, 'Listed twice (first on line 2)'],
      [6, null],
      [7, 'Name longer than 200 characters'],
    ]);
    const { students, lines } = rowsToSend(preview);
    expect(students).toEqual([
      { email: 'ada@school.test', full_name: 'Ada Lovelace' },
      { email: 'bea@school.test', full_name: '' },
    ]);
    expect(lines).toEqual([2, 6]);
  });

  it('reads lines without a header as e-mail then name, and a header in any column order', () => {
    expect(rowsToSend(buildPreview('ada@school.test,Ada\nbea@school.test,Bea')).students).toEqual([
      { email: 'ada@school.test', full_name: 'Ada' },
      { email: 'bea@school.test', full_name: 'Bea' },
    ]);
    expect(rowsToSend(buildPreview('Name,Email\nAda,ada@school.test')).students).toEqual([
      { email: 'ada@school.test', full_name: 'Ada' },
    ]);
  });

  it('refuses more than 500 good lines in one import', () => {
    const lines = Array.from({ length: 501 }, (_, i) => `s${i}@school.test,S ${i}`);
    expect(buildPreview(lines.join('\n')).tooMany).toBe(true);
    expect(buildPreview(lines.slice(0, 500).join('\n')).tooMany).toBe(false);
  });

  it('writes the passwords file with one student a line', () => {
    const csv = passwordsCsv({
      created: [
        { row: 1, email: 'ada@school.test', user_id: 5, temporary_password: 'tmp-Ada-1' },
        { row: 3, email: 'bea@school.test', user_id: 6, temporary_password: 'tmp,Bea' },
      ],
      added: [{ row: 2, email: 'old@school.test', user_id: 2 }],
      errors: [],
    });
    expect(csv).toBe('email,temporary_password\r\nada@school.test,tmp-Ada-1\r\nbea@school.test,"tmp,Bea"\r\n');
  });
});
