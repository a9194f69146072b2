import { useEffect, useRef, useState } from 'preact/hooks';

export interface View {
  scale: number;
  x: number;
  y: number;
}

const MIN_SCALE = 0.05;
const MAX_SCALE = 4;
const STEP = 1.25;
/** A press that moves less than this is a click, not a pan. */
const DRAG_SLOP = 4;

/**
 * Zoom, pan and fit for a drawing of `width` × `height` shown in the element `canvas` refers to:
 * the wheel zooms around the pointer, a drag pans (and the click that ends a drag is swallowed so
 * it opens nothing), and `fit` shows the whole drawing, never above its natural size. The view
 * fits itself whenever the drawing changes.
 */
export function useViewport(width: number, height: number) {
  const canvas = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<View>({ scale: 1, x: 0, y: 0 });
  const drag = useRef<{ startX: number; startY: number; from: View; moved: boolean } | null>(null);

  const size = () => ({ w: canvas.current?.clientWidth || 800, h: canvas.current?.clientHeight || 600 });
  const fit = () => {
    const { w, h } = size();
    const scale = clamp(Math.min(w / width, h / height, 1));
    setView({ scale, x: (w - width * scale) / 2, y: (h - height * scale) / 2 });
  };
  const zoomAt = (factor: number, cx?: number, cy?: number) =>
    setView((current) => {
      const { w, h } = size();
      const [px, py] = [cx ?? w / 2, cy ?? h / 2];
      const scale = clamp(current.scale * factor);
      const k = scale / current.scale;
      return { scale, x: px - (px - current.x) * k, y: py - (py - current.y) * k };
    });
  const panBy = (dx: number, dy: number) => setView((current) => ({ ...current, x: current.x + dx, y: current.y + dy }));
  /** Brings the drawing's point (x, y) to the middle of the canvas at the natural size. */
  const centerOn = (x: number, y: number) => {
    const { w, h } = size();
    setView({ scale: 1, x: w / 2 - x, y: h / 2 - y });
  };

  useEffect(fit, [width, height]);

  const handlers = {
    onWheel: (event: WheelEvent) => {
      event.preventDefault();
      const box = canvas.current!.getBoundingClientRect();
      zoomAt(event.deltaY < 0 ? STEP : 1 / STEP, event.clientX - box.left, event.clientY - box.top);
    },
    onPointerDown: (event: PointerEvent) => {
      if (event.button !== 0) return;
      drag.current = { startX: event.clientX, startY: event.clientY, from: view, moved: false };
    },
    onPointerMove: (event: PointerEvent) => {
      const current = drag.current;
      if (!current) return;
      const [dx, dy] = [event.clientX - current.startX, event.clientY - current.startY];
      if (!current.moved && Math.hypot(dx, dy) < DRAG_SLOP) return;
      if (!current.moved) canvas.current?.setPointerCapture(event.pointerId);
      current.moved = true;
      setView({ ...current.from, x: current.from.x + dx, y: current.from.y + dy });
    },
    onPointerUp: () => {
      // A drag's click, if any, comes in this same task: swallowed by onClickCapture, then forgotten.
      if (drag.current?.moved) setTimeout(() => (drag.current = null), 0);
      else drag.current = null;
    },
    onClickCapture: (event: MouseEvent) => {
      if (drag.current?.moved) {
        event.preventDefault();
        event.stopPropagation();
      }
      drag.current = null;
    },
  };
  return { canvas, view, fit, zoomIn: () => zoomAt(STEP), zoomOut: () => zoomAt(1 / STEP), panBy, centerOn, handlers };
}

function clamp(scale: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
}
