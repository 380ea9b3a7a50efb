// The drawings on the canvas: one lightweight-charts series primitive (its "plugins" API) that
// draws every drawing of the pair in the price pane, so they scroll, zoom and repaint with the
// candles in the same frame, with no DOM element per drawing.
import type { DrawingKind, DrawingPoint, Timeframe } from '@pipdesk/contract';
import type {
  IChartApi,
  IPrimitivePaneRenderer,
  IPrimitivePaneView,
  ISeriesApi,
  ISeriesPrimitive,
  SeriesAttachedParameter,
  Time,
} from 'lightweight-charts';
import { translucent } from '../../../components/chart';
import { type Px, type Shape, shapeOf, textBox } from './geometry';
import { projectChart } from './projection';

/** A drawing as the layer shows it (the server's, or moved and not yet saved). */
export interface ShownDrawing {
  id: number;
  kind: DrawingKind;
  points: readonly DrawingPoint[];
  text: string | null;
  color: string | null;
}

/** A drawing being placed: the points clicked so far and the one under the pointer. */
export interface Draft {
  kind: DrawingKind;
  points: readonly DrawingPoint[];
}

export interface DrawingColors {
  /** A drawing without a colour of its own. */
  line: string;
  /** A text note's letters and the fib's labels. */
  text: string;
  /** Behind a handle and a note. */
  background: string;
}

export interface DrawingScene {
  drawings: readonly ShownDrawing[];
  selectedId: number | null;
  draft: Draft | null;
  colors: DrawingColors;
}

type Target = Parameters<IPrimitivePaneRenderer['draw']>[0];
type Ctx = CanvasRenderingContext2D;

interface Painted {
  shape: Shape;
  color: string;
  selected: boolean;
  draft: boolean;
}

const HANDLE_SIZE = 7;
const FONT = '12px sans-serif';

/** Paints the shapes computed for this frame; the pane's own size bounds the lines that span it. */
class DrawingsRenderer implements IPrimitivePaneRenderer {
  constructor(
    private readonly painted: readonly Painted[],
    private readonly colors: DrawingColors,
    private readonly formatPrice: (price: number) => string,
  ) {}

  draw(target: Target): void {
    // biome-ignore lint/correctness/useHookAtTopLevel: fancy-canvas's drawing scope, not a React hook
    target.useMediaCoordinateSpace(({ context, mediaSize }) => {
      context.save();
      context.font = FONT;
      for (const item of this.painted) this.paint(context, item, mediaSize.width);
      context.restore();
    });
  }

  private paint(ctx: Ctx, { shape, color, selected, draft }: Painted, width: number): void {
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = selected ? 2 : 1;
    ctx.setLineDash(draft ? [5, 4] : []);
    switch (shape.kind) {
      case 'hline':
        line(ctx, { x: 0, y: shape.y }, { x: width, y: shape.y });
        break;
      case 'trend':
        line(ctx, shape.a, shape.b);
        break;
      case 'ray':
        line(ctx, shape.a, shape.end);
        break;
      case 'rect': {
        const x = Math.min(shape.a.x, shape.b.x);
        const y = Math.min(shape.a.y, shape.b.y);
        const w = Math.abs(shape.b.x - shape.a.x);
        const h = Math.abs(shape.b.y - shape.a.y);
        ctx.fillStyle = translucent(color, 0.12);
        ctx.fillRect(x, y, w, h);
        ctx.strokeRect(x, y, w, h);
        break;
      }
      case 'fib': {
        const left = Math.min(shape.a.x, shape.b.x);
        const right = Math.max(shape.a.x, shape.b.x);
        ctx.save();
        ctx.setLineDash([3, 3]);
        ctx.globalAlpha = 0.6;
        line(ctx, shape.a, shape.b);
        ctx.restore();
        ctx.textBaseline = 'bottom';
        for (const level of shape.levels) {
          line(ctx, { x: left, y: level.y }, { x: right, y: level.y });
          ctx.fillStyle = color;
          ctx.fillText(`${level.level}% ${this.formatPrice(level.price)}`, left + 2, level.y - 2);
        }
        break;
      }
      case 'text': {
        const box = textBox(shape.a, shape.text);
        ctx.fillStyle = translucent(this.colors.background, 0.85);
        ctx.fillRect(box.left, box.top, box.width, box.height);
        if (selected) ctx.strokeRect(box.left, box.top, box.width, box.height);
        ctx.fillStyle = color;
        ctx.textBaseline = 'middle';
        ctx.fillText(shape.text, box.left + 4, box.top + box.height / 2);
        break;
      }
    }
    if (selected || draft) for (const anchor of anchors(shape)) handle(ctx, anchor, color, this.colors.background);
  }
}

function line(ctx: Ctx, a: Px, b: Px): void {
  ctx.beginPath();
  ctx.moveTo(a.x, a.y);
  ctx.lineTo(b.x, b.y);
  ctx.stroke();
}

/** The points a selected drawing can be dragged by (docs/charting.md#on-the-chart). */
function anchors(shape: Shape): Px[] {
  if (shape.kind === 'hline') return [];
  if (shape.kind === 'text') return [shape.a];
  return [shape.a, shape.b];
}

function handle(ctx: Ctx, at: Px, color: string, background: string): void {
  ctx.setLineDash([]);
  ctx.lineWidth = 1;
  ctx.fillStyle = background;
  ctx.fillRect(at.x - HANDLE_SIZE / 2, at.y - HANDLE_SIZE / 2, HANDLE_SIZE, HANDLE_SIZE);
  ctx.strokeStyle = color;
  ctx.strokeRect(at.x - HANDLE_SIZE / 2, at.y - HANDLE_SIZE / 2, HANDLE_SIZE, HANDLE_SIZE);
}

class DrawingsPaneView implements IPrimitivePaneView {
  /** This frame's painting, set by `updateAllViews`. */
  painter: IPrimitivePaneRenderer | null = null;

  renderer(): IPrimitivePaneRenderer | null {
    return this.painter;
  }

  zOrder() {
    return 'top' as const;
  }
}

/**
 * The pair's drawings as one series primitive. The layer hands it the scene (`setScene`) whenever
 * the drawings, the selection or the draft change; the chart asks it to recompute its pixels
 * (`updateAllViews`) whenever it scrolls, scales or gets data.
 */
export class DrawingsPrimitive implements ISeriesPrimitive<Time> {
  private scene: DrawingScene | null = null;
  private requestUpdate: (() => void) | null = null;
  private readonly view = new DrawingsPaneView();
  // The library caches by the array's identity: the same array while the set of views is the same.
  private readonly views: readonly IPrimitivePaneView[] = [this.view];

  constructor(
    private readonly chart: IChartApi,
    private readonly series: ISeriesApi<'Candlestick'>,
    private readonly timeframe: Timeframe | null,
  ) {}

  attached({ requestUpdate }: SeriesAttachedParameter<Time>): void {
    this.requestUpdate = requestUpdate;
  }

  detached(): void {
    this.requestUpdate = null;
  }

  setScene(scene: DrawingScene): void {
    this.scene = scene;
    this.updateAllViews();
    this.requestUpdate?.();
  }

  updateAllViews(): void {
    const scene = this.scene;
    if (!scene) {
      this.view.painter = null;
      return;
    }
    const projection = projectChart(this.chart, this.series, this.timeframe);
    const painted: Painted[] = [];
    for (const d of scene.drawings) {
      const shape = shapeOf(d, projection, projection.view);
      if (shape) painted.push({ shape, color: d.color ?? scene.colors.line, selected: d.id === scene.selectedId, draft: false });
    }
    const draft = scene.draft && shapeOf(scene.draft, projection, projection.view);
    if (draft) painted.push({ shape: draft, color: scene.colors.line, selected: false, draft: true });
    const formatter = this.series.priceFormatter();
    this.view.painter = new DrawingsRenderer(painted, scene.colors, (price) => formatter.format(price));
  }

  paneViews(): readonly IPrimitivePaneView[] {
    return this.views;
  }
}
