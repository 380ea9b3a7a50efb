import { useParams } from 'react-router';
import { Page } from '../../components';

/** Route `/pair/:symbol`. Placeholder until the market issue fills it in. */
export function PairPage() {
  const { symbol = '' } = useParams();
  return <Page title={symbol.toUpperCase()} />;
}
