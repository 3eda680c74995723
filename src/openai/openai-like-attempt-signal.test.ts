import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILike } from "./openai-like.js";

const startServer = fakeServersClosedAfterEach();
const RETRIES = 20;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

afterEach(() => {
  process.off("warning", onWarning);
  warnings.length = 0;
});

/** A model on a local server that fails the first 20 requests with a 500, then answers. */
async function flakyModel() {
  const faults = [
    { kind: "status" as const, status: 500, requests: Array.from({ length: RETRIES }, (_, i) => i) },
  ];
  const server = await startServer({ faults });
  return new OpenAILike({
    model: "fake-model",
    baseURL: server.url,
    apiKey: "sk-local",
    maxRetries: RETRIES,
    _internal: { sleep: async () => {}, random: () => 0.5 },
  });
}

/** Lets a pending process warning (emitted on the next tick) arrive. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("each retry attempt gets its own child signal", () => {
  it("leaves no abort listener on the caller's signal after 20 retries (complete)", async () => {
    process.on("warning", onWarning);
    const llm = await flakyModel();
    const controller = new AbortController();
    const result = await llm.complete("Hi", { signal: controller.signal });
    expect(result.usage?.retries).toBe(RETRIES);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    await settle();
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("holds at most one listener on the caller's signal while a streamed answer is read after 20 retries", async () => {
    process.on("warning", onWarning);
    const llm = await flakyModel();
    const controller = new AbortController();
    const counts: number[] = [];
    let text = "";
    for await (const delta of llm.streamComplete("Hi", { signal: controller.signal })) {
      counts.push(getEventListeners(controller.signal, "abort").length);
      text += delta;
    }
    expect(text).not.toBe("");
    expect(Math.max(...counts)).toBeLessThanOrEqual(1);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    await settle();
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("still aborts a call in flight through the attempt's signal", async () => {
    const server = await startServer({ faults: [{ kind: "slow-first-byte", delayMs: 5000 }] });
    const llm = new OpenAILike({
      model: "fake-model",
      baseURL: server.url,
      apiKey: "sk-local",
      maxRetries: 0,
    });
    const controller = new AbortController();
    const pending = llm.complete("Hi", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
