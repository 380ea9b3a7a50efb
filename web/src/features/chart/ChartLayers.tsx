// The layers the chart tools draw over every chart (the pair page's and each Charts page panel's),
// inside ChartApiContext: the trader's drawings, and the trade tools (an alert at a price, one-click buttons).
import { ChartTradeTools } from '../tools/ChartTradeTools';
import { DrawingLayer } from './drawings/DrawingLayer';

/** What goes over each chart. */
export function ChartLayers() {
  return (
    <>
      <DrawingLayer />
      <ChartTradeTools />
    </>
  );
}
