import { cp, mkdir, readdir, utimes } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli } from "./run-cli.js";

let dir: string;
let docs: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, docs, cleanup } = await copyExampleDocs());
});
afterEach(() => cleanup());

interface AskJson {
  index: { chunks: number; sources: Record<"added" | "changed" | "unchanged" | "removed", string[]> };
  sources: { file: string }[];
}

describe("ragsynth ask: one store, the same files with other times", () => {
  it("reads no file's text again when a copy of the folder (another machine's checkout) asks the same store", async () => {
    // Two checkouts of one folder, as two machines have them: the same bytes, other modification times.
    const machines = [join(dir, "machine-a"), join(dir, "machine-b")];
    for (const [index, machine] of machines.entries()) {
      await mkdir(machine);
      await cp(docs, join(machine, "docs"), { recursive: true });
      const when = new Date(Date.UTC(2026, 0, 1 + index));
      for (const name of await readdir(join(machine, "docs")))
        await utimes(join(machine, "docs", name), when, when);
    }
    const store = join(dir, "shared-store");
    const ask = async (machine: string) => {
      const run = await runCli(
        ["ask", "docs", "--store", store, "-q", "What is the default response mode?", "--json"],
        { cwd: machine },
      );
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as AskJson;
    };
    // The chunk rows as written: a file split again rewrites its rows (the node with the time it was read at).
    const chunkRows = () => {
      const db = new Database(join(store, "ragsynth-index.sqlite"), { readonly: true });
      try {
        return db.prepare("SELECT key, node_id, node FROM chunks ORDER BY key").all();
      } finally {
        db.close();
      }
    };
    const first = await ask(machines[0] as string);
    const files = first.index.sources.added;
    expect(files.length).toBeGreaterThan(3);
    const written = chunkRows();
    expect(written).toHaveLength(first.index.chunks);
    // Every later ask, from either checkout, finds every file unchanged by its bytes: none changed, none added, no
    // chunk row written again.
    for (const machine of [machines[1], machines[0], machines[1]] as string[]) {
      const again = await ask(machine);
      expect(again.index.sources).toEqual({ added: [], changed: [], unchanged: files, removed: [] });
      expect(again.sources.map((source) => source.file)).toEqual(first.sources.map((source) => source.file));
      expect(chunkRows()).toEqual(written);
    }
  });
});
