import { describe, expect, it } from "vitest";
import { storeFlag } from "./store-flag.js";

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
});
