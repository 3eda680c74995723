import { describe, expect, it } from "vitest";
import { parseCommand } from "./parse-command.js";
import { storeFlag } from "./store-flag.js";
import { UsageError } from "./usage-error.js";

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

  it("refuses a --store or --cache-dir that reads as a URL of another kind, rather than make a folder of that name", () => {
    for (const typo of ["postgresql:/nohost/db", "pg://host/db", "mysql://u:hunter22@host/db"]) {
      expect(() => storeFlag(typo, undefined), typo).toThrow(UsageError);
      expect(() => storeFlag(undefined, typo), typo).toThrow(UsageError);
    }
    const error = catchError(() => storeFlag("mysql://u:hunter22@host/db", undefined));
    expect(error.message).toContain("--store (or RAGSYNTH_STORE) takes a folder or a PostgreSQL URL");
    expect(error.message).toContain("mysql://u:[REDACTED]@host/db");
    expect(error.message).not.toContain("hunter22");
    expect((error as UsageError).hint).toMatch(/two slashes after the colon.*\.\//);
    // A PostgreSQL URL is for --store; --cache-dir takes folders only.
    expect(() => storeFlag(undefined, "postgres://u:hunter22@host/db")).toThrow(
      /--cache-dir takes a folder, got the PostgreSQL URL postgres:\/\/u:\[REDACTED\]@host\/db/,
    );
    // A Windows drive, and a folder whose name holds a colon written with ./, are folders.
    expect(storeFlag("C:\\index", undefined)).toEqual({ cacheDir: "C:\\index" });
    expect(storeFlag(undefined, "./notes:2024")).toEqual({ cacheDir: "./notes:2024" });
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

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}
