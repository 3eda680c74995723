import { describe, expect, it } from "vitest";
import { createEventLog, eventToJSON, phaseTimings } from "./event-log.js";

describe("eventToJSON", () => {
  it("turns errors into name, code and message only", () => {
    const error = Object.assign(new Error("boom", { cause: new Error("secret cause") }), {
      code: "llm_auth",
    });
    const json = eventToJSON({ type: "query-end", query: "q", durationMs: 1, error });
    expect(json.error).toEqual({ name: "Error", code: "llm_auth", message: "boom" });
    expect(JSON.stringify(json)).not.toContain("secret cause");
  });
});

describe("createEventLog", () => {
  it("keeps the events in order, each with its reading of the log's clock", () => {
    let now = 100;
    const log = createEventLog(() => now);
    now = 112.4;
    log.handler({ type: "retrieve-start", query: "q" });
    now = 130;
    log.handler({ type: "retrieve-end", query: "q", nodeCount: 0, tokens: 0, durationMs: 18 });
    expect(log.events.map((event) => [event.type, event.atMs])).toEqual([
      ["retrieve-start", 12],
      ["retrieve-end", 30],
    ]);
    now = 150;
    expect(log.elapsedMs()).toBe(50);
  });
});

describe("phaseTimings", () => {
  it("sums each phase's durations over the run, rounded", () => {
    const usage = { llmCalls: 1, promptTokens: 1, completionTokens: 1, retries: 0 };
    expect(
      phaseTimings([
        { type: "retrieve-end", query: "q", nodeCount: 2, tokens: 10, durationMs: 1.4 },
        { type: "retrieve-end", query: "q", nodeCount: 2, tokens: 10, durationMs: 1.4 },
        {
          type: "postprocess-end",
          name: "SimilarityPostprocessor",
          nodesBefore: 2,
          nodesAfter: 1,
          tokensBefore: 10,
          tokensAfter: 5,
          durationMs: 0.4,
        },
        { type: "synthesize-end", mode: "compact", usage, durationMs: 12.6 },
      ]),
    ).toEqual({ retrieveMs: 3, postprocessMs: 0, synthesizeMs: 13 });
  });
});
