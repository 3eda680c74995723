import { describe, expect, it } from "vitest";
import { parseCommand } from "./parse-command.js";
import { storeFlag } from "./store-flag.js";

const URL = "postgres://u:secret@host/db?schema=docs";
const parse = (argv: string[], env: Record<string, string> = {}) => parseCommand(argv, env);

describe("--store", () => {
  it("takes a PostgreSQL URL, a folder (as --cache-dir) or the SQLite file (its folder)", () => {
    expect(storeFlag("postgres://u:p@host/db?schema=docs", undefined)).toEqual({
      url: "postgres://u:p@host/db?schema=docs",
    });
    expect(storeFlag("postgresql://host/db", undefined)).toEqual({ url: "postgresql://host/db" });
    expect(storeFlag("docs/.ragsynth", undefined)).toEqual({ cacheDir: "docs/.ragsynth" });
    expect(storeFlag("docs/.ragsynth/ragsynth-index.sqlite", undefined)).toEqual({
      cacheDir: "docs/.ragsynth",
    });
    expect(storeFlag(undefined, "cache")).toEqual({ cacheDir: "cache" });
  });

  it("refuses --store together with --cache-dir", () => {
    expect(() => storeFlag("postgres://host/db", "cache")).toThrow(/--store and --cache-dir/);
  });

  it("is read from the flag, else RAGSYNTH_STORE, by ask, plan, index and eval (a folder or a URL)", () => {
    expect(parse(["ask", "docs", "-q", "x", "--store", URL])).toMatchObject({ options: { store: URL } });
    const ask = parse(["ask", "docs", "-q", "x", "--store", "cache"], { RAGSYNTH_STORE: URL });
    expect(ask).toMatchObject({ options: { store: "cache" } });
    expect(parse(["index", "docs"], { RAGSYNTH_STORE: URL })).toMatchObject({ options: { store: URL } });
    expect(parse(["plan", "docs", "-q", "x"], { RAGSYNTH_STORE: "cache" })).toMatchObject({
      options: { store: "cache" },
    });
    expect(parse(["eval", "q.jsonl", "docs", "--store", URL])).toMatchObject({ options: { store: URL } });
  });

  it("on batch and worker is a PostgreSQL URL only; a RAGSYNTH_STORE folder is for the other commands", () => {
    expect(parse(["batch", "q.jsonl", "--store", URL, "--out", "a.jsonl"])).toMatchObject({
      options: { store: URL, index: undefined },
    });
    expect(() => parse(["batch", "q.jsonl", "--store", "docs/.ragsynth", "--out", "a.jsonl"])).toThrow(
      /batch --store takes a PostgreSQL URL, got docs\/.ragsynth/,
    );
    expect(() => parse(["worker", "--redis", "redis://h:6379", "--store", "postgres-folder"])).toThrow(
      /worker --store takes a PostgreSQL URL/,
    );
    // The password of a URL-looking value never shows in the refusal.
    expect(() => parse(["worker", "--redis", "redis://h:6379", "--store", "mysql://u:secret@h/db"])).toThrow(
      /^(?!.*secret).*takes a PostgreSQL URL/,
    );
    const fromEnv = parse(["batch", "q.jsonl", "--index", "i", "--out", "a.jsonl"], {
      RAGSYNTH_STORE: "cache",
    });
    expect(fromEnv).toMatchObject({ options: { store: undefined, index: "i" } });
    expect(parse(["worker", "--redis", "redis://h:6379"], { RAGSYNTH_STORE: URL })).toMatchObject({
      options: { store: URL },
    });
  });

  it("refuses batch --store with --redis and eval --redis with a PostgreSQL store; batch needs --index or --store", () => {
    expect(() =>
      parse(["batch", "q.jsonl", "--store", URL, "--out", "a", "--redis", "redis://h:6379"]),
    ).toThrow(/batch --store with --redis/);
    expect(() => parse(["eval", "q.jsonl", "docs", "--redis", "redis://h:6379", "--store", URL])).toThrow(
      /eval --redis with a PostgreSQL --store/,
    );
    // A folder store travels as the jobs' index folder, as --cache-dir does.
    expect(parse(["eval", "q.jsonl", "docs", "--redis", "redis://h:6379", "--store", "cache"])).toMatchObject(
      {
        options: { store: "cache", redis: "redis://h:6379" },
      },
    );
    expect(() => parse(["batch", "q.jsonl", "--out", "a.jsonl"])).toThrow(/--index <dir>.* or --store/);
  });
});
