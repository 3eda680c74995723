import { parentPort, workerData } from "node:worker_threads";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { saveTokenizerCache } from "../tokenizer/bpe-tokenizer.js";
import { useTokenizerCache } from "../tokenizer/cache-dir.js";
import { type ParseReply, type ParseRequest, parseRequested } from "./parse-thread.js";
import {
  type SaveRequest,
  type SplitReply,
  type SplitRequest,
  type SplitThreadSettings,
  splitRequested,
} from "./split-thread.js";

// A worker thread of an index build (split-pool.ts): parses the files' bytes and splits the documents it is sent.
// A split runs start to end; a parse may wait (PDF.js), and a split sent meanwhile runs then.

const settings = workerData as SplitThreadSettings;
if (settings.tokenizerCache)
  useTokenizerCache(settings.tokenizerCache.folder, { compiledCode: settings.tokenizerCache.compiledCode });
const splitter = new BlockSplitter(settings.splitter);
const port = parentPort;

port?.on("message", (message: SplitRequest | ParseRequest | SaveRequest) => {
  if ("save" in message) {
    saveTokenizerCache();
    port.postMessage({ saved: true });
    return;
  }
  if ("parse" in message) {
    void parseRequested(message).then((reply) => {
      try {
        port.postMessage(reply);
      } catch {
        // What the reader made cannot be sent (a value a structured clone refuses): the main thread parses it.
        port.postMessage({ seq: message.seq, cannot: true } satisfies ParseReply);
      }
    });
    return;
  }
  let reply: SplitReply;
  try {
    reply = splitRequested(message, splitter, settings.keepVectors);
  } catch (error) {
    reply = { seq: message.seq, failed: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply, "rows" in reply ? [reply.rows] : []);
});
