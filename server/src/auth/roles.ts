import { errors } from '../errors.js';
import type { AuthUser } from './types.js';

type Role = AuthUser['role'];

/** 403 unless the caller holds one of `roles` (docs/academy.md#scope). */
export function requireRole(user: AuthUser, ...roles: Role[]): void {
  if (!roles.includes(user.role)) throw errors.forbidden(roleMessage(roles));
}

function roleMessage(roles: Role[]): string {
  return roles.includes('instructor') ? 'This call is for instructors and admins' : 'This call is for admins';
}
