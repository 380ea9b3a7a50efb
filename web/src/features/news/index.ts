// The news feature: the /news screen and the panels the dashboard and the pair page place.
export { NewsPage } from './NewsPage';
export { PairNewsPanel, type PairNewsPanelProps } from './PairNewsPanel';
export { TradingNewsPanel, type TradingNewsPanelProps } from './TradingNewsPanel';
