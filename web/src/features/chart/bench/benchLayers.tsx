// Part of the chart bench page (chartBench.tsx; never loaded by the app). The bench build resolves
// ChartView's `./ChartLayers` to this module: the real layers need the signed-in app's providers.
// It also times the chart's paints: lightweight-charts paints in a requestAnimationFrame callback
// (looked up on `window` at each call), so wrapping that function times every paint exactly.

/** Nothing over the chart: drawings and trade tools are not what the bench measures. */
export function ChartLayers() {
  return null;
}

interface Frame {
  /** Main-thread milliseconds spent in the chart's callbacks of one frame. */
  cost: number;
  /** When the last of them ended (performance.now()). */
  end: number;
}

const nativeRaf = window.requestAnimationFrame.bind(window);
const nativeTimeout = window.setTimeout.bind(window);
const channel = new MessageChannel();
let frame: Frame | null = null;
let waiters: Array<(frame: Frame | null) => void> = [];

// Runs once the frame's callbacks are all done (a task after the frame): the frame is complete.
channel.port1.onmessage = () => {
  const done = frame;
  frame = null;
  const ready = waiters;
  waiters = [];
  for (const resolve of ready) resolve(done);
};

window.requestAnimationFrame = (callback: FrameRequestCallback): number =>
  nativeRaf((time) => {
    const start = performance.now();
    try {
      callback(time);
    } finally {
      const end = performance.now();
      if (!frame) {
        frame = { cost: 0, end };
        channel.port2.postMessage(null);
      }
      frame.cost += end - start;
      frame.end = end;
    }
  });

// The chart's work put off to idle time (liveSeries.ts: folding a tail into its history, laying
// bar times ahead) runs in requestIdleCallback callbacks: timed the same way, and kept apart from
// the ticks' figures (it is main-thread time, but no tick waits for it).
const nativeIdle = window.requestIdleCallback.bind(window);
const idleCosts: number[] = [];
window.requestIdleCallback = (callback: IdleRequestCallback, options?: IdleRequestOptions): number =>
  nativeIdle((deadline) => {
    const start = performance.now();
    try {
      callback(deadline);
    } finally {
      idleCosts.push(performance.now() - start);
    }
  }, options);

/** The main-thread milliseconds of each idle-time job since the last call. */
export function takeIdleCosts(): number[] {
  return idleCosts.splice(0);
}

/** The next frame in which the chart paints, or null if it does not paint within `timeoutMs`. */
function nextFrame(timeoutMs: number): Promise<Frame | null> {
  return new Promise((resolve) => {
    let settled = false;
    const once = (f: Frame | null) => {
      if (settled) return;
      settled = true;
      resolve(f);
    };
    waiters.push(once);
    nativeTimeout(() => once(null), timeoutMs);
  });
}

export const paints = {
  /** When the chart's next paint ended (performance.now()). */
  async next(): Promise<number> {
    const f = await nextFrame(5_000);
    if (!f) throw new Error('the chart did not paint');
    return f.end;
  },
  /** The main-thread cost of the chart's next paint (0 when nothing is painted within 250 ms). */
  async nextCost(): Promise<number> {
    return (await nextFrame(250))?.cost ?? 0;
  },
  /** Waits until two frames have passed with nothing left to paint. */
  async settle(): Promise<void> {
    while ((await nextFrame(100)) !== null) {
      // another paint: wait for the next
    }
    await new Promise((resolve) => nativeRaf(() => nativeRaf(resolve)));
  },
};
