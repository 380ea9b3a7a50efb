import { MEMBERS_IMPORT_MAX, type MemberImportRow, type MembersImportResponse } from '@pipdesk/contract';
import { parseCsv, toCsv } from './csv';

/** One student line of the pasted or chosen CSV, with what is wrong with it before anything is sent. */
export interface PreviewRow {
  /** The line's number in the file (the header, when there is one, is line 1). */
  line: number;
  email: string;
  full_name: string;
  error: string | null;
}

export interface ImportPreview {
  rows: PreviewRow[];
  /** More good rows than one import takes (docs/academy.md: at most 500). */
  tooMany: boolean;
}

// The shape of an address, as a person would check it; the server decides for good.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_HEADERS = ['email', 'e-mail', 'email address'];
const NAME_HEADERS = ['full_name', 'full name', 'name'];

/**
 * Reads the CSV of an import: `email,full_name` per line, with or without that header (the
 * header may name the columns in any order). Each line gets its own error: no e-mail, not an
 * e-mail, too long, or listed twice.
 */
export function buildPreview(text: string): ImportPreview {
  const records = parseCsv(text);
  let emailCol = 0;
  let nameCol = 1;
  let first = 0;
  const head = records[0]?.map((h) => h.trim().toLowerCase());
  if (head?.some((h) => EMAIL_HEADERS.includes(h))) {
    emailCol = head.findIndex((h) => EMAIL_HEADERS.includes(h));
    const n = head.findIndex((h) => NAME_HEADERS.includes(h));
    nameCol = n;
    first = 1;
  }
  const seen = new Map<string, number>();
  const rows: PreviewRow[] = [];
  for (let i = first; i < records.length; i++) {
    const record = records[i] ?? [];
    const email = (record[emailCol] ?? '').trim();
    const full_name = nameCol === -1 ? '' : (record[nameCol] ?? '').trim();
    const line = i + 1;
    let error: string | null = null;
    if (email === '') error = 'No e-mail address';
    else if (email.length > 320 || !EMAIL.test(email)) error = `Not an e-mail address: ${email}`;
    else if (full_name.length > 200) error = 'Name longer than 200 characters';
    else {
      const key = email.toLowerCase();
      const earlier = seen.get(key);
      if (earlier !== undefined) error = `Listed twice (first on line ${earlier})`;
      else seen.set(key, line);
    }
    rows.push({ line, email, full_name, error });
  }
  const good = rows.filter((r) => r.error === null).length;
  return { rows, tooMany: good > MEMBERS_IMPORT_MAX };
}

/** The rows the import sends (those without an error), in file order; the server's `row` n is the n-th of them. */
export function rowsToSend(preview: ImportPreview): { students: MemberImportRow[]; lines: number[] } {
  const good = preview.rows.filter((r) => r.error === null);
  return { students: good.map((r) => ({ email: r.email, full_name: r.full_name })), lines: good.map((r) => r.line) };
}

/** The file of the new students' temporary passwords: e-mail and password, one student a line. */
export function passwordsCsv(result: MembersImportResponse): string {
  return toCsv([['email', 'temporary_password'], ...result.created.map((c) => [c.email, c.temporary_password])]);
}

export const PASSWORDS_FILE = 'temporary-passwords.csv';
