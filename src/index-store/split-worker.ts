import { parentPort, workerData } from "node:worker_threads";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { saveTokenizerCache } from "../tokenizer/bpe-tokenizer.js";
import { useTokenizerCache } from "../tokenizer/cache-dir.js";
import {
  type SaveRequest,
  type SplitReply,
  type SplitRequest,
  type SplitThreadSettings,
  splitRequested,
} from "./split-thread.js";

// A worker thread of an index build (split-pool.ts): splits the documents it is sent, one at a time.

const settings = workerData as SplitThreadSettings;
if (settings.tokenizerCache)
  useTokenizerCache(settings.tokenizerCache.folder, { compiledCode: settings.tokenizerCache.compiledCode });
const splitter = new BlockSplitter(settings.splitter);
const port = parentPort;

port?.on("message", (message: SplitRequest | SaveRequest) => {
  if ("save" in message) {
    saveTokenizerCache();
    port.postMessage({ saved: true });
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
