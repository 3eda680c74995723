import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BatchItemResult } from "./types.js";

/**
 * Reads a results JSONL (one {@link BatchItemResult} per line) into a map by id; a later line for the same id
 * wins, and a torn last line (the process was killed mid-write) is ignored. A missing file reads as empty.
 */
export async function readResultsFile(path: string): Promise<Map<string, BatchItemResult>> {
  const results = new Map<string, BatchItemResult>();
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return results;
    throw error;
  }
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const result = JSON.parse(line) as BatchItemResult;
      if (typeof result.id === "string" && typeof result.ok === "boolean") results.set(result.id, result);
    } catch {
      // torn line
    }
  }
  return results;
}

/** Appends one result as its own line (a single write, so lines never interleave within this process). */
export async function appendResult(path: string, result: BatchItemResult): Promise<void> {
  await appendFile(path, `${JSON.stringify(result)}\n`);
}

/** Creates the results file's folder, and the file when missing. */
export async function prepareResultsFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, "");
}

/** Rewrites the results file in input order, one line per id, atomically (temporary file, then rename). */
export async function writeResultsFile(path: string, results: readonly BatchItemResult[]): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, results.map((result) => `${JSON.stringify(result)}\n`).join(""));
  await rename(temporary, path);
}
