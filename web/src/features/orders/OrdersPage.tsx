import { Page } from '../../components';

/** Route `/orders`. Placeholder until its issue fills it in. */
export function OrdersPage() {
  return <Page title="Order History" />;
}
