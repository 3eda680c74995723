import { describe, expect, it } from "vitest";
import { checkInteger } from "./check-integer.js";
import { describeValue } from "./describe-value.js";
import { InvalidArgumentError } from "./invalid-argument-error.js";
import { stringifyScrubbed, urlCredentials, withoutCredentials } from "./scrub-secrets.js";

const KEY = "sk-proj-ABCDEFGH12345678";

describe("stringifyScrubbed and withoutCredentials", () => {
  it("redacts credential-like keys at any depth and sk-/Bearer text, and keeps everything else", () => {
    const options = { model: "m", apiKey: "abc", headers: { "api-key": "xyz", Authorization: "Basic q" } };
    expect(stringifyScrubbed(options)).toBe(
      '{"model":"m","apiKey":"[REDACTED]","headers":{"api-key":"[REDACTED]","Authorization":"[REDACTED]"}}',
    );
    expect(stringifyScrubbed({ note: `uses ${KEY}`, maxTokens: 5, metadataKeys: ["a"] })).toBe(
      '{"note":"uses [REDACTED]","maxTokens":5,"metadataKeys":["a"]}',
    );
  });

  it("returns a value without credentials as it is, and a scrubbed copy otherwise", () => {
    const plain = { chunkSize: 5 };
    expect(withoutCredentials(plain)).toBe(plain);
    expect(withoutCredentials(600)).toBe(600);
    expect(withoutCredentials({ apiKey: KEY, model: "m" })).toEqual({ apiKey: "[REDACTED]", model: "m" });
    expect(withoutCredentials(`key ${KEY}`)).toBe("key [REDACTED]");
  });
});

describe("urlCredentials", () => {
  it("finds a URL's password, as written and decoded; a PostgreSQL user name alone is no secret", () => {
    expect(urlCredentials("postgres://reader:s%40cret-pass@db:5432/docs")).toEqual([
      "s%40cret-pass",
      "s@cret-pass",
    ]);
    expect(urlCredentials("redis://user:hunter2hunter2@127.0.0.1:6379")).toEqual(["hunter2hunter2"]);
    // ioredis reads `redis://secret@host` as a password; libpq and pg read `postgres://name@host` as a user name.
    expect(urlCredentials("redis://onlypassword@127.0.0.1:6379")).toEqual(["onlypassword"]);
    expect(urlCredentials("postgres://ragsynth@127.0.0.1:5432/postgres")).toEqual([]);
    expect(urlCredentials("POSTGRESQL://analytics@db/postgres")).toEqual([]);
    expect(urlCredentials("postgres://127.0.0.1/postgres")).toEqual([]);
    expect(urlCredentials(undefined)).toEqual([]);
  });
});

describe("describeValue and InvalidArgumentError", () => {
  it("render values as before, with credentials scrubbed from the message and the value field", () => {
    expect(describeValue(600)).toBe("`600` (number)");
    expect(describeValue("abc")).toBe('`"abc"` (string)');
    expect(describeValue([1, 2])).toBe("`[1,2]` (array)");
    const error = new InvalidArgumentError({
      parameter: "llm",
      value: { apiKey: KEY },
      expected: "be an LLM",
    });
    expect(error.message).toBe('Expected `llm` to be an LLM, got `{"apiKey":"[REDACTED]"}` (object).');
    expect(JSON.stringify(error)).not.toContain(KEY);
  });
});

describe("checkInteger", () => {
  it("accepts integers from the minimum and names what it expected otherwise", () => {
    expect(() => checkInteger("size", 1, 1)).not.toThrow();
    expect(() => checkInteger("overlap", 0, 0)).not.toThrow();
    expect(() => checkInteger("size", 0, 1)).toThrow(
      "Expected `size` to be a positive integer, got `0` (number).",
    );
    expect(() => checkInteger("overlap", -1, 0)).toThrow("Expected `overlap` to be an integer ≥ 0");
    expect(() => checkInteger("levels", 1.5, 2)).toThrow("Expected `levels` to be an integer ≥ 2");
    expect(() => checkInteger("size", "3", 1)).toThrow(InvalidArgumentError);
  });
});
