import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = pathToFileURL(path.join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const CHILD = fileURLToPath(new URL("./indexer-child.ts", import.meta.url));

/**
 * Starts indexer-child.ts with `args` (pushed on `children`, for the caller to kill after the test); `onLine` gets
 * each line of its stdout. Resolves with its exit code, or null when a signal ended it.
 */
export function startIndexerChild(
  args: string[],
  onLine: (line: string) => void,
  children: ChildProcess[],
): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", TSX, CHILD, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let buffered = "";
  child.stdout?.setEncoding("utf8").on("data", (data: string) => {
    buffered += data;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ? null : code)));
}
