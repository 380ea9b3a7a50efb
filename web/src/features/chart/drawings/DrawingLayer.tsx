import { DRAWING_POINTS, type Drawing, type DrawingKind, type DrawingPoint } from '@pipdesk/contract';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Alert } from '../../../components';
import { themeChartColors } from '../../../components/chart';
import { useChartApi } from '../ChartContext';
import { DRAWINGS_LOAD_FAILED, useDrawingEdits, useDrawings } from './api';
import { DrawingsList } from './DrawingsList';
import { DrawingToolbar, NoteForm } from './DrawingToolbar';
import { dragPoints, hitTest, KIND_LABELS, type Nudge, nudgePoints, type Part, type Px, type Shape, shapeOf } from './geometry';
import { type DrawingColors, DrawingsPrimitive, type ShownDrawing } from './primitive';
import { type ChartProjection, projectChart } from './projection';
import { type PointerEditing, usePointerEditing } from './usePointerEditing';
import './drawings.css';

export interface DrawingLayerProps {
  /** Shows the drawings only: no tools, no selection, no moving. */
  readOnly?: boolean;
  /** A student's drawings (an instructor's view; always read-only). */
  studentId?: number;
}

/** The theme's colours for drawings without their own (read when the theme changes). */
function drawingColors(): DrawingColors {
  const c = themeChartColors((token) => ({ line: token('--accent', '#4c8dff'), label: token('--text', '#e6edf5') }));
  return { line: c.line, text: c.label, background: c.background };
}

/** The colours, again whenever the theme switch sets data-theme on <html> (after React renders). */
function useDrawingColors(): DrawingColors {
  const [colors, setColors] = useState(drawingColors);
  useEffect(() => {
    const watch = new MutationObserver(() => setColors(drawingColors()));
    watch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => watch.disconnect();
  }, []);
  return colors;
}

/** A drawing shown where the pointer took it: while dragged, and after the drop until the saved list arrives. */
interface Moved {
  id: number;
  points: DrawingPoint[];
  /** The list it was dropped over; null while still dragged. */
  droppedOver: Drawing[] | undefined | null;
}

interface Grab {
  id: number;
  kind: DrawingKind;
  part: Part;
  points: readonly DrawingPoint[];
  projection: ChartProjection;
  /** Where the drag has taken the points so far (read on release: the state may not have rendered yet). */
  dragged: DrawingPoint[] | null;
}

const NO_DRAWINGS: readonly Drawing[] = [];

/** Where to write into a field: the layer's keys stay out of the way there. */
function typingIn(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/**
 * The pair's drawings over the chart it is rendered in (docs/charting.md#on-the-chart): drawn on
 * the chart's canvas by a series primitive; with the toolbar, placed by clicks, selected by a
 * click near one, dragged (saved on release) and deleted with Delete, or from the list.
 * `studentId` shows a student's drawings, read-only, to their instructor.
 */
export function DrawingLayer({ readOnly = false, studentId }: DrawingLayerProps) {
  const chartApi = useChartApi();
  const symbol = chartApi?.symbol ?? null;
  const editable = !readOnly && studentId === undefined;
  const query = useDrawings(symbol, studentId);
  const data = query.data;
  const edits = useDrawingEdits(symbol ?? '');
  const colors = useDrawingColors();
  const listId = useId();

  const [tool, setTool] = useState<DrawingKind | null>(null);
  const [placed, setPlaced] = useState<DrawingPoint[]>([]);
  const [hover, setHover] = useState<DrawingPoint | null>(null);
  const [notePoint, setNotePoint] = useState<DrawingPoint | null>(null);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [moved, setMoved] = useState<Moved | null>(null);
  const [listOpen, setListOpen] = useState(false);
  const grab = useRef<Grab | null>(null);

  const drawings: readonly ShownDrawing[] = useMemo(() => {
    const list = data ?? NO_DRAWINGS;
    if (!moved || (moved.droppedOver !== null && moved.droppedOver !== data)) return list;
    return list.map((d) => (d.id === moved.id ? { ...d, points: moved.points } : d));
  }, [data, moved]);
  const selected = drawings.find((d) => d.id === selectedId) ?? null;

  const chart = chartApi?.chart ?? null;
  const series = chartApi?.series ?? null;
  const timeframe = chartApi?.timeframe ?? null;
  const primitive = useMemo(
    () => (chart && series ? new DrawingsPrimitive(chart, series, timeframe) : null),
    [chart, series, timeframe],
  );
  useEffect(() => {
    if (!primitive || !series) return;
    series.attachPrimitive(primitive);
    return () => series.detachPrimitive(primitive);
  }, [primitive, series]);

  const draftPoints = tool ? [...placed, ...(hover ? [hover] : [])] : [];
  const draft =
    tool && tool !== 'text' && draftPoints.length === DRAWING_POINTS[tool] ? { kind: tool, points: draftPoints } : null;
  useEffect(() => {
    primitive?.setScene({ drawings, selectedId: editable ? selectedId : null, draft, colors });
  });

  const projection = () => (chart && series ? projectChart(chart, series, timeframe) : null);
  const putDown = () => {
    setTool(null);
    setPlaced([]);
    setHover(null);
  };
  const create = (kind: DrawingKind, points: DrawingPoint[], text?: string) => {
    if (!symbol) return;
    edits.create({ symbol, kind, points, ...(text === undefined ? {} : { text }) });
    putDown();
  };
  const place = (point: DrawingPoint, from: DrawingPoint | null) => {
    if (!tool) return;
    if (tool === 'text') {
      setNotePoint(point);
      putDown();
    } else if (DRAWING_POINTS[tool] === 1) create(tool, [point]);
    else if (placed[0]) create(tool, [placed[0], point]);
    else if (from && (from.time !== point.time || from.price !== point.price)) create(tool, [from, point]);
    else setPlaced([point]);
  };
  const remove = (id: number) => {
    edits.remove(id);
    if (selectedId === id) setSelectedId(null);
  };
  const nudge = (id: number, direction: Nudge) => {
    const d = drawings.find((x) => x.id === id);
    const proj = projection();
    if (!d || !proj) return;
    edits.move(
      id,
      nudgePoints(d.kind, d.points, direction, { price: proj.minMove * 10, time: proj.barMs, minMove: proj.minMove }),
    );
  };

  const editing = useRef<PointerEditing>({ press: () => null, drag() {}, release() {}, hover() {} });
  editing.current = {
    press(p: Px) {
      const proj = projection();
      if (!proj) return null;
      if (tool) return 'place';
      const shapes: Array<{ id: number; shape: Shape }> = [];
      for (const d of drawings) {
        const shape = shapeOf(d, proj, proj.view);
        if (shape) shapes.push({ id: d.id, shape });
      }
      const hit = hitTest(shapes, p);
      const d = hit && drawings.find((x) => x.id === hit.id);
      if (!hit || !d) {
        setSelectedId(null);
        return null;
      }
      setSelectedId(d.id);
      grab.current = { id: d.id, kind: d.kind, part: hit.part, points: d.points, projection: proj, dragged: null };
      return 'drag';
    },
    drag(p, from) {
      const g = grab.current;
      if (!g) return;
      const points = dragPoints(g.kind, g.points, g.part, p.x - from.x, p.y - from.y, g.projection.toPx, g.projection.fromPx);
      if (!points) return;
      g.dragged = points;
      setMoved({ id: g.id, points, droppedOver: null });
    },
    release(mode, p, from, wasMoved) {
      if (mode === 'place') {
        const proj = projection();
        const point = proj?.fromPx(p);
        if (point) place(point, wasMoved ? (proj?.fromPx(from) ?? null) : null);
        return;
      }
      const g = grab.current;
      grab.current = null;
      if (!g?.dragged || !wasMoved) return;
      setMoved({ id: g.id, points: g.dragged, droppedOver: data });
      edits.move(g.id, g.dragged);
    },
    hover(p) {
      if (!tool) return;
      const point = projection()?.fromPx(p) ?? null;
      setHover(point);
    },
  };
  usePointerEditing(chart, chartApi?.container ?? null, editable, editing);

  // Delete removes the selected drawing, Escape puts the tool down (or lets go of the selection).
  useEffect(() => {
    if (!editable) return;
    const keyDown = (e: KeyboardEvent) => {
      if (typingIn(e.target) || e.defaultPrevented) return;
      if (e.key === 'Escape') {
        if (tool) putDown();
        else setSelectedId(null);
      } else if ((e.key === 'Delete' || e.key === 'Backspace') && selectedId !== null) {
        e.preventDefault();
        remove(selectedId);
      }
    };
    document.addEventListener('keydown', keyDown);
    return () => document.removeEventListener('keydown', keyDown);
  });

  if (!chartApi) return null;
  const formatPrice = (price: number) => chartApi.series.priceFormatter().format(price);

  if (!editable)
    return (
      <div className="drawing-layer drawing-layer--read-only">
        {query.isError && (
          <p className="drawing-layer__status" role="status">
            {DRAWINGS_LOAD_FAILED}
          </p>
        )}
        {query.isSuccess && drawings.length === 0 && (
          <p className="drawing-layer__status" role="status">
            No drawings on {chartApi.symbol}
          </p>
        )}
      </div>
    );

  const hint = tool
    ? tool === 'text'
      ? 'Click on the chart where the note goes'
      : placed.length === 0 && DRAWING_POINTS[tool] === 2
        ? `${KIND_LABELS[tool]}: click the first point (Escape cancels)`
        : `${KIND_LABELS[tool]}: click ${DRAWING_POINTS[tool] === 2 ? 'the second point' : 'the price'} (Escape cancels)`
    : null;

  return (
    <div className="drawing-layer">
      <DrawingToolbar
        tool={tool}
        onTool={(next) => {
          setTool(next);
          setPlaced([]);
          setHover(null);
          setNotePoint(null);
          if (next) setSelectedId(null);
        }}
        canDelete={selected !== null}
        onDelete={() => selected && remove(selected.id)}
        listOpen={listOpen}
        onToggleList={() => setListOpen((open) => !open)}
        count={drawings.length}
        listId={listId}
      />
      <div className="drawing-layer__panel">
        {hint && (
          <p className="drawing-layer__hint" role="status">
            {hint}
          </p>
        )}
        {query.isError && <Alert tone="error">{DRAWINGS_LOAD_FAILED}</Alert>}
        {edits.error && (
          <Alert tone="error" title="Drawing not saved" dismissible onDismiss={edits.dismissError}>
            {edits.error}
          </Alert>
        )}
        {notePoint && (
          <NoteForm
            busy={edits.creating}
            onCancel={() => setNotePoint(null)}
            onSave={(text) => {
              create('text', [notePoint], text);
              setNotePoint(null);
            }}
          />
        )}
        {listOpen && (
          <DrawingsList
            id={listId}
            symbol={chartApi.symbol}
            drawings={drawings}
            selectedId={selectedId}
            onSelect={setSelectedId}
            onNudge={nudge}
            onDelete={remove}
            formatPrice={formatPrice}
          />
        )}
      </div>
    </div>
  );
}
