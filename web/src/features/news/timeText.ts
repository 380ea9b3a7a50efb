import { formatDate } from '../../components';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * When an article came out, as the news lists say it (docs/screens.md#news): "N minutes ago" within the
 * hour, "N hours ago" within the day, "Yesterday" when it is over a day old but dated the
 * trader's previous calendar day, then the date in the app's one style ("12 Jan 2026"). A time slightly in the
 * future (a feed's clock ahead of ours) reads as 0 minutes ago; an unreadable one as ''.
 */
export function newsTimeText(publishedUtc: string, now: number): string {
  const published = Date.parse(publishedUtc);
  if (Number.isNaN(published)) return '';
  const age = Math.max(0, now - published);
  if (age < HOUR_MS) return plural(Math.floor(age / MINUTE_MS), 'minute');
  if (age < DAY_MS) return plural(Math.floor(age / HOUR_MS), 'hour');
  if (isLocalYesterday(published, now)) return 'Yesterday';
  return formatDate(published);
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
}

/** By calendar, not by `now - 24h`: a day across a daylight-saving change has 23 or 25 hours. */
function isLocalYesterday(time: number, now: number): boolean {
  const day = new Date(time);
  const yesterday = new Date(now);
  yesterday.setDate(yesterday.getDate() - 1);
  return (
    day.getFullYear() === yesterday.getFullYear() &&
    day.getMonth() === yesterday.getMonth() &&
    day.getDate() === yesterday.getDate()
  );
}
