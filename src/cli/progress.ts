import type { TextSink } from "./io.js";
import { ownControl } from "./terminal-text.js";

/**
 * A one-line progress display on stderr: a spinner and label, with a bar, done/total and an ETA when the
 * total is known. Redrawn every 80 ms (the CPU-bound phases yield every ~50 ms so it can) and erased when done, so finished work leaves no noise above the answer.
 * Disabled (every method a no-op) when stderr is not a terminal.
 */
export interface Progress {
  /** Starts (or replaces) the current task. */
  start(label: string, total?: number): void;
  /**
   * Updates the current task's count and, optionally, its detail text and the time left (`etaMs`, when the
   * caller knows better than done/total, such as a batch that skipped finished items); the line shows one ETA.
   */
  update(done: number, detail?: string, options?: { etaMs?: number | undefined }): void;
  /** Erases the line; the next `start` draws again. Call before writing to a terminal stdout. */
  clear(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const BAR_WIDTH = 20;
// Back to the line's start and erase it: the CLI's own codes, which the terminal sink lets through.
const ERASE_LINE = ownControl("\r\u001b[2K");

export const silentProgress: Progress = { start() {}, update() {}, clear() {} };

export function createProgress({
  enabled,
  sink,
  columns,
  now = Date.now,
}: {
  enabled: boolean;
  sink: TextSink;
  columns: number;
  now?: () => number;
}): Progress {
  if (!enabled) return silentProgress;
  let label = "";
  let total: number | undefined;
  let done = 0;
  let detail = "";
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  let etaMs: number | undefined;

  const draw = () => {
    frame = (frame + 1) % FRAMES.length;
    let line = `${FRAMES[frame]} ${label}`;
    if (total !== undefined && total > 0) {
      const filled = Math.round((Math.min(done, total) / total) * BAR_WIDTH);
      line += ` [${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}] ${done}/${total}`;
    }
    if (detail) line += ` ${detail}`;
    const seconds = (now() - started) / 1000;
    if (seconds >= 1) line += ` ${seconds.toFixed(0)}s`;
    if (total !== undefined && done > 0 && done < total && seconds >= 1) {
      line += ` · ETA ${Math.ceil(etaMs !== undefined ? etaMs / 1000 : (seconds / done) * (total - done))}s`;
    }
    const width = Math.max(10, columns - 1);
    sink.write(`${ERASE_LINE}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
  };

  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  return {
    start(nextLabel, nextTotal) {
      label = nextLabel;
      total = nextTotal;
      done = 0;
      detail = "";
      etaMs = undefined;
      started = now();
      if (!timer) {
        timer = setInterval(draw, 80);
        timer.unref();
      }
      draw();
    },
    update(nextDone, nextDetail, options) {
      done = nextDone;
      if (nextDetail !== undefined) detail = nextDetail;
      if (options && "etaMs" in options) etaMs = options.etaMs;
    },
    clear() {
      if (!timer) return;
      stopTimer();
      sink.write(ERASE_LINE);
    },
  };
}
