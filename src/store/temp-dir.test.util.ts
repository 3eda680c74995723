// A fresh folder per store test, removed after each test (the SQLite store tests).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

/** Registers the cleanup and returns a function making a new temporary folder named `ragsynth-<prefix>-…`. */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), `ragsynth-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}
