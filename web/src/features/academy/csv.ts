// CSV in and out for the student import (docs/screens.md#academy): RFC 4180 quoting, as the
// orders export writes it (docs/orders.md#csv-export), so a sheet saved by any spreadsheet reads back.

/**
 * Splits CSV text into records of fields: commas separate, a quoted field may hold commas,
 * doubled quotes and line breaks; lines end with LF or CRLF. Blank lines are left out.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  // A byte order mark (spreadsheets on Windows write one) is not part of the first field.
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const endRecord = () => {
    record.push(field);
    field = '';
    if (record.length > 1 || record[0]?.trim() !== '') records.push(record);
    record = [];
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n') endRecord();
    else if (c === '\r') {
      if (text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/**
 * A field as CSV: quoted when it holds a comma, a quote or a line break, its quotes doubled.
 * Nothing else is changed (no apostrophe before a leading `=` or `-`): a temporary password
 * must reach the student exactly as the server made it.
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Rows as CSV text, lines ending with CRLF (RFC 4180). */
export function toCsv(rows: ReadonlyArray<ReadonlyArray<string>>): string {
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}
