// The layers the chart tools draw over every chart (the pair page's and each Charts page panel's),
// inside ChartApiContext: drawings (./drawings/) and the trade tools (alert at a price, one-click buttons).

/** What goes over each chart. */
export function ChartLayers() {
  return (
    <>
      {/* CHART LAYER: <DrawingLayer /> from './drawings/DrawingLayer' goes here once that file exists. */}
      {/* CHART LAYER: <ChartTradeTools /> from '../tools/ChartTradeTools' goes here once that file exists. */}
    </>
  );
}
