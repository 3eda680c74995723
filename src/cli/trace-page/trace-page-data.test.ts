import { describe, expect, it } from "vitest";
import type { RagsynthEvent } from "../../events/events.js";
import { renderPlanPage } from "./render-plan-page.js";
import { renderTracePage } from "./render-trace-page.js";
import { buildTracePageData } from "./trace-page-data.js";

const KEY = "sk-abcdefghijklmnopqrstuvwxyz123456";
const leaf = (index: number) => ({ kind: "tree" as const, level: 0, index, count: 2 });
const root = { kind: "tree" as const, level: 1, index: 0, count: 1 };
type Timed = RagsynthEvent & { atMs: number };
const call = (
  step: typeof root,
  context: string,
  text: string,
  atMs: number,
  latencyMs: number,
  {
    retries = 0,
    nodeIds,
    inputCallIds,
  }: { retries?: number; nodeIds?: string[]; inputCallIds?: string[] } = {},
): Timed[] => {
  const callId = `call-${JSON.stringify(step)}`;
  return [
    {
      type: "llm-call-start",
      mode: "tree_summarize",
      callId,
      step,
      promptTokens: 50,
      contextTokens: 20,
      context,
      ...(nodeIds ? { nodeIds } : {}),
      ...(inputCallIds ? { inputCallIds } : {}),
      atMs: atMs - latencyMs,
    },
    {
      type: "llm-call-end",
      mode: "tree_summarize",
      callId,
      step,
      promptTokens: 50,
      completionTokens: 5,
      latencyMs,
      usage: { retries },
      text,
      atMs,
    },
  ];
};
const BOILERPLATE = "Company handbook, revision 12, internal use only, page footer. ";

const events: Timed[] = [
  { type: "synthesize-start", mode: "tree_summarize", query: "q", nodeCount: 2, atMs: 100 },
  // The two leaves overlap (concurrency); they end out of order.
  ...call(leaf(1), "Berlin is in Germany.", "Berlin summary.", 400, 250, { retries: 1, nodeIds: ["de"] }),
  ...call(leaf(0), `${BOILERPLATE}Paris is in France. Key ${KEY}`, "Paris summary.", 450, 340, {
    nodeIds: ["fr"],
  }),
  ...call(root, "Paris summary.\n\nBerlin summary.", "Both capitals.", 600, 100, {
    inputCallIds: [`call-${JSON.stringify(leaf(0))}`, `call-${JSON.stringify(leaf(1))}`],
  }),
  {
    type: "synthesize-end",
    mode: "tree_summarize",
    usage: { llmCalls: 3, promptTokens: 150, completionTokens: 15, retries: 1 },
    durationMs: 500,
    atMs: 600,
  },
];
const data = buildTracePageData({
  events,
  sources: [
    { id: "fr", name: "fr.md", text: `${BOILERPLATE}Paris is in France. Key ${KEY}`, score: 0.9 },
    { id: "de", name: "de.md", text: "Berlin is in Germany.", score: 0.5 },
    // Shares its first 60 characters with fr.md but was never packed into a call: no call read it.
    { id: "es", name: "es.md", text: `${BOILERPLATE}Madrid is in Spain.`, score: 0.4 },
  ],
  waits: [{ atMs: 200, delayMs: 50, reason: "429 llm_rate_limit" }],
  query: "Where?",
  answer: "Both capitals.",
  model: "m",
  contextWindow: 1000,
  numOutput: 100,
});

describe("buildTracePageData", () => {
  it("pairs starts and ends by step, times calls from the synthesis start, and puts overlapping calls in lanes", () => {
    expect(data.calls.map((item) => [item.label, item.startMs, item.endMs, item.lane])).toEqual([
      ["L0 #2/2", 50, 300, 1],
      ["L0 #1/2", 10, 350, 0],
      ["root (level 1)", 400, 500, 0],
    ]);
    expect(data.calls[0]?.retries).toBe(1);
    expect(data.waits).toEqual([{ atMs: 100, delayMs: 50, reason: "429 llm_rate_limit" }]);
    expect(data.totalMs).toBe(500);
  });

  it("lists what each call's start event recorded (nodes by id, answers by call id), not text that looks alike", () => {
    expect(data.calls.map((item) => item.sources)).toEqual([[1], [0], []]);
    expect(data.calls[2]?.inputs).toEqual([1, 0]);
    // es.md shares a long piece of text with fr.md's call context, yet no call packed it.
    expect(data.sources.map((source) => source.calls)).toEqual([[1], [0], []]);
  });

  it("says who counted each call's tokens, and flags a call whose prompt plus numOutput went over the window", () => {
    expect(data.calls.map((item) => [item.promptCountedBy, item.completionCountedBy])).toEqual([
      ["ragsynth", "ragsynth"],
      ["ragsynth", "ragsynth"],
      ["ragsynth", "ragsynth"],
    ]);
    expect(data.usageCountedBy).toBe("ragsynth");
    expect(data.calls.map((item) => item.overWindowBy)).toEqual([undefined, undefined, undefined]);
    const served = buildTracePageData({
      events: events.map((event) =>
        event.type === "llm-call-end" && event.step.kind === "tree" && event.step.level === 1
          ? { ...event, promptTokens: 960, usage: { promptTokens: 960, completionTokens: 5 } }
          : event,
      ),
      sources: [],
      query: "q",
      answer: "a",
      model: "m",
      contextWindow: 1000,
      numOutput: 100,
    });
    const rootCall = served.calls[2];
    expect([rootCall?.promptCountedBy, rootCall?.completionCountedBy]).toEqual(["server", "server"]);
    expect(rootCall?.countedPromptTokens).toBe(50);
    expect(rootCall?.overWindowBy).toBe(60); // 960 + 100 − 1000
    expect(served.usageCountedBy).toBe("mixed");
    const html = renderTracePage(served);
    expect(html.match(/class="card over"/g)).toHaveLength(1);
    expect(html).toContain("over the window by 60");
    expect(html.match(/data-counted-by="server"/g)).toHaveLength(1);
  });

  it("scrubs secrets from every text, and the rendered pages carry none", () => {
    const html = renderTracePage(data);
    expect(JSON.stringify(data)).not.toContain(KEY);
    expect(html).not.toContain(KEY);
    expect(html).toContain("[REDACTED]");
    const plan = renderPlanPage({
      query: `q ${KEY}`,
      model: "m",
      contextWindow: 1000,
      numOutput: 100,
      chunks: [{ name: "a.md", tokens: 10 }],
      modes: [{ mode: "compact", llmCalls: { min: 1, max: 1 }, promptTokens: { min: 10, max: 10 } }],
    });
    expect(plan).not.toContain(KEY);
  });

  it("writes one self-contained document: no external URL, scripts that cannot be closed by the data", () => {
    const tricky = buildTracePageData({
      events,
      sources: [{ name: "</script><script>alert(1)</script>", text: "x" }],
      query: "<img src=x onerror=alert(1)>",
      answer: "",
      model: "m",
      contextWindow: 1000,
      numOutput: 100,
    });
    const html = renderTracePage(tricky);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(html).not.toContain("<img");
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data block and the page script, nothing else
    expect(html).toContain("default-src 'none'");
  });
});
