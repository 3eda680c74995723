// The fake OpenAI server (ragsynth/testing) on a worker thread, so its work (parsing each prompt, writing each
// answer) runs on the machine's other core, as a real server's runs elsewhere, instead of on the event loop of
// the client being measured. Answers are answerFor(call index % 64), as the in-process server gave them.
import { pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { answerFor } from "./fake-llm.mjs";
import { DIST_TESTING } from "./libs.mjs";

/**
 * Starts the server on a worker thread with `options` (latencyMs, maxConcurrent: JSON). Resolves with
 * `{ url, stats(), resetStats(), close() }`; `stats()` resolves with the server's `{ rejected, maxAccepted }`.
 */
export function startFakeServerThread(options) {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  let next = 0;
  const waiting = new Map();
  worker.on("message", (message) => {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message.value);
  });
  const ask = (type) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ id, type });
    });
  return ask("url").then((url) => ({
    url,
    stats: () => ask("stats"),
    resetStats: () => ask("reset"),
    close: async () => {
      await ask("close");
      await worker.terminate();
    },
  }));
}

if (!isMainThread) {
  const { startFakeOpenAIServer } = await import(pathToFileURL(DIST_TESTING).href);
  let answer = 0;
  const server = await startFakeOpenAIServer({ ...workerData, handler: () => answerFor(answer++ % 64) });
  parentPort.on("message", async ({ id, type }) => {
    let value;
    if (type === "url") value = server.url;
    else if (type === "stats")
      value = { rejected: server.stats.rejected, maxAccepted: server.stats.maxAccepted };
    else if (type === "reset") {
      server.stats.rejected = 0;
      server.stats.maxAccepted = 0;
    } else if (type === "close") await server.close();
    parentPort.postMessage({ id, value });
  });
}
