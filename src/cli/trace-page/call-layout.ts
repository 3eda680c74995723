import type { LLMCallStep } from "../../events/events.js";

/** A call's name on the page: `L0 #3/12`, `root (level 2)`, `refine 4`. */
export function stepLabel(step: LLMCallStep): string {
  switch (step.kind) {
    case "tree":
      return step.count === 1
        ? `root (level ${step.level})`
        : `L${step.level} #${step.index + 1}/${step.count}`;
    case "accumulate":
    case "rerank":
      return `${step.kind} ${step.index + 1}/${step.count}`;
    case "refine":
      return `refine ${step.index}`;
    case "answer":
      return step.index === 0 ? "answer" : `answer ${step.index}`;
    case "custom":
      return step.name;
    default:
      return step.kind;
  }
}

/** The column a call sits in: its tree level or refine step; 0 for single-round modes. */
export function roundOf(step: LLMCallStep): number {
  if ("level" in step) return step.level;
  if (step.kind === "refine" || step.kind === "answer") return step.index;
  return 0;
}

/** Gives each call the first lane free at its start, so overlapping calls stack (concurrency made visible). */
export function assignLanes(calls: Array<{ startMs: number; endMs: number; lane: number }>): void {
  const laneEnds: number[] = [];
  for (const call of [...calls].sort((a, b) => a.startMs - b.startMs)) {
    let lane = laneEnds.findIndex((end) => end <= call.startMs);
    if (lane === -1) lane = laneEnds.length;
    laneEnds[lane] = call.endMs;
    call.lane = lane;
  }
}
