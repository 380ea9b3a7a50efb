// The pair chart's lines (docs/screens.md#chart-lines): which lines, moving them, and their confirmation.
// The drawing on the canvas is CandlestickChart's (it holds the charting library); this folder has no canvas code.
export type { LineChangeResult } from './api';
export { ChartLinesList } from './ChartLinesList';
export { LineDialog } from './LineDialog';
export { type ChartLine, chartLines, type LineTone, lineChange, orderLineLabel, parseLinePrice, snapPrice } from './lines';
export { LINE_CHANGE_FAILED, type LineEdit, useLineEdits } from './useLineEdits';
