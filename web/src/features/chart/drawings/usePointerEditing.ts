import type { IChartApi } from 'lightweight-charts';
import { type RefObject, useEffect } from 'react';
import type { Px } from './geometry';
import { pointerInPane } from './projection';

/** What a press on the price pane starts: placing a tool's point, dragging a drawing, or nothing (the chart pans). */
export type PressResult = 'place' | 'drag' | null;

/** The layer's answers to the pointer, read through a ref so the listeners stay attached across renders. */
export interface PointerEditing {
  press(p: Px): PressResult;
  /** The pointer moved while pressed for a drag, `from` being where the press began. */
  drag(p: Px, from: Px): void;
  /** The press ended; `moved` says whether it went past the click threshold. */
  release(mode: 'place' | 'drag', p: Px, from: Px, moved: boolean): void;
  /** The pointer moved over the pane without a press (the placing preview). */
  hover(p: Px): void;
}

/** A press must travel this far before it is a drag (a shorter one is a click), as the chart lines do. */
export const DRAG_THRESHOLD_PX = 3;

/**
 * Pointer handling of the drawings over `container`. A press the layer takes (placing a point,
 * grabbing a drawing) is kept from the chart: `preventDefault` on pointerdown suppresses the
 * mouse events the chart pans with, and its scrolling and scaling are off until the release
 * (touch has no such suppression).
 */
export function usePointerEditing(
  chart: IChartApi | null,
  container: HTMLElement | null,
  enabled: boolean,
  editing: RefObject<PointerEditing>,
): void {
  useEffect(() => {
    if (!chart || !container || !enabled) return;
    let release: (() => void) | null = null;

    const down = (e: PointerEvent) => {
      if (e.button !== 0 || release) return;
      const from = pointerInPane(e, container, chart);
      const size = chart.paneSize(0);
      if (from.x < 0 || from.y < 0 || from.x > size.width || from.y > size.height) return;
      const mode = editing.current.press(from);
      if (!mode) return;
      e.preventDefault();
      const before = chart.options();
      chart.applyOptions({ handleScroll: false, handleScale: false });
      let moved = false;
      const move = (ev: PointerEvent) => {
        const p = pointerInPane(ev, container, chart);
        if (!moved && Math.hypot(p.x - from.x, p.y - from.y) < DRAG_THRESHOLD_PX) return;
        moved = true;
        if (mode === 'drag') editing.current.drag(p, from);
        else editing.current.hover(p);
      };
      const end = (ev: PointerEvent) => {
        release?.();
        if (ev.type === 'pointerup') editing.current.release(mode, pointerInPane(ev, container, chart), from, moved);
      };
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', end);
      window.addEventListener('pointercancel', end);
      release = () => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', end);
        window.removeEventListener('pointercancel', end);
        chart.applyOptions({ handleScroll: before.handleScroll, handleScale: before.handleScale });
        release = null;
      };
    };
    const hover = (e: PointerEvent) => {
      if (!release) editing.current.hover(pointerInPane(e, container, chart));
    };

    // Capture: the layer sees the press before the chart's own panes do.
    container.addEventListener('pointerdown', down, true);
    container.addEventListener('pointermove', hover);
    return () => {
      container.removeEventListener('pointerdown', down, true);
      container.removeEventListener('pointermove', hover);
      release?.();
    };
  }, [chart, container, enabled, editing]);
}
