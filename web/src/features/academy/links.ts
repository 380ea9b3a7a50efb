import type { AcademyMeDto } from '@pipdesk/contract';

export interface AcademyLink {
  to: string;
  label: string;
}

/**
 * The header links the academy adds after the base ones (docs/screens.md#header, #academy): Academy for
 * instructors and admins, Leaderboard for a member of a cohort. None while the role is unknown.
 */
export function academyLinks(me: Pick<AcademyMeDto, 'role' | 'cohort_id'> | undefined): AcademyLink[] {
  if (!me) return [];
  const links: AcademyLink[] = [];
  if (me.role === 'instructor' || me.role === 'admin') links.push({ to: '/academy', label: 'Academy' });
  if (me.cohort_id !== null) links.push({ to: '/leaderboard', label: 'Leaderboard' });
  return links;
}
