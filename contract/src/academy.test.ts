import { describe, expect, it } from 'vitest';
import {
  changePasswordRequestSchema,
  cohortCreateRequestSchema,
  cohortPatchRequestSchema,
  MEMBERS_IMPORT_MAX,
  membersImportRequestSchema,
} from './academy.js';

// The academy's request schemas (docs/academy.md): what the server and the web's forms accept.

const cohort = { name: 'Spring', starting_balance: 5000, leverage: 50 };
const firstIssue = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  result.success ? undefined : `${result.error?.issues[0]?.path.join('.')}: ${result.error?.issues[0]?.message}`;

describe('cohort requests', () => {
  it('fills the defaults and trims the name', () => {
    expect(cohortCreateRequestSchema.parse({ ...cohort, name: '  Spring  ' })).toEqual({
      name: 'Spring',
      description: '',
      starting_balance: 5000,
      leverage: 50,
      starts_at: null,
      ends_at: null,
      allow_self_reset: false,
    });
  });

  it('takes whole cents only: 0.01, 2500.5 and 999999999.99 yes; 10.005, 0, -1 and 1e10 no', () => {
    for (const ok of [0.01, 2500.5, 0.1, 999_999_999.99]) {
      expect(cohortCreateRequestSchema.safeParse({ ...cohort, starting_balance: ok }).success, String(ok)).toBe(true);
    }
    for (const bad of [10.005, 0, -1, 1e10, Number.NaN, '5000']) {
      expect(cohortCreateRequestSchema.safeParse({ ...cohort, starting_balance: bad }).success, String(bad)).toBe(false);
    }
  });

  it('names the field of a bad time, leverage or order of times', () => {
    expect(firstIssue(cohortCreateRequestSchema.safeParse({ ...cohort, leverage: 1001 }))).toBe('leverage: must be 1 to 1000');
    expect(firstIssue(cohortCreateRequestSchema.safeParse({ ...cohort, starts_at: '2027-02-30x' }))).toMatch(/^starts_at: /);
    expect(
      firstIssue(cohortCreateRequestSchema.safeParse({ ...cohort, starts_at: '2027-05-02', ends_at: '2027-05-01T23:59:59Z' })),
    ).toBe('ends_at: must not be before starts_at');
    expect(cohortCreateRequestSchema.safeParse({ ...cohort, starts_at: '2027-05-01', ends_at: '2027-05-01' }).success).toBe(true);
  });

  it('a patch needs one field and knows only active and archived', () => {
    expect(cohortPatchRequestSchema.safeParse({}).success).toBe(false);
    expect(cohortPatchRequestSchema.parse({ status: 'archived' })).toEqual({ status: 'archived' });
    expect(cohortPatchRequestSchema.safeParse({ status: 'deleted' }).success).toBe(false);
    expect(cohortPatchRequestSchema.parse({ ends_at: null })).toEqual({ ends_at: null });
  });
});

describe('members import request', () => {
  it('takes 1 to 500 students; a row’s e-mail is checked by the server per row, not here', () => {
    const row = { email: 'not an e-mail', full_name: 'X' };
    expect(membersImportRequestSchema.safeParse({ students: [row] }).success).toBe(true);
    expect(membersImportRequestSchema.parse({ students: [{ email: 'a@b.example' }] }).students[0]?.full_name).toBe('');
    expect(membersImportRequestSchema.safeParse({ students: [] }).success).toBe(false);
    expect(membersImportRequestSchema.safeParse({ students: Array(MEMBERS_IMPORT_MAX).fill(row) }).success).toBe(true);
    expect(membersImportRequestSchema.safeParse({ students: Array(MEMBERS_IMPORT_MAX + 1).fill(row) }).success).toBe(false);
    expect(membersImportRequestSchema.safeParse({ students: [{ email: 'a\u0000@b.example' }] }).success).toBe(false);
  });
});

describe('change-password request', () => {
  it('needs both passwords, a new one of 8 to 128 characters that differs from the current one', () => {
    expect(
      changePasswordRequestSchema.safeParse({ current_password: 'old-password', new_password: 'new-password' }).success,
    ).toBe(true);
    expect(
      firstIssue(changePasswordRequestSchema.safeParse({ current_password: 'same-password', new_password: 'same-password' })),
    ).toBe('new_password: must differ from the current password');
    expect(firstIssue(changePasswordRequestSchema.safeParse({ current_password: 'x', new_password: 'short' }))).toMatch(
      /^new_password: must be 8 to 128/,
    );
    expect(changePasswordRequestSchema.safeParse({ current_password: 'x', new_password: 'n'.repeat(129) }).success).toBe(false);
  });
});
