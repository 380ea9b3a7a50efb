import { Page } from '../../components';

/** Route `/`. Placeholder until its issue fills it in. */
export function DashboardPage() {
  return <Page title="Trading Dashboard" />;
}
