import { describe, expect, it } from "vitest";
import { LLMError } from "../errors/llm-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { renderError } from "./render-error.js";
import { UsageError } from "./usage-error.js";

describe("renderError", () => {
  it("renders a usage error as one line with its hint, exit 2", () => {
    const { text, exitCode } = renderError(new UsageError("Unknown option --x.", "Valid options: --y."), {
      verbose: true,
    });
    expect(text).toBe("ragsynth: Unknown option --x. Valid options: --y.\n");
    expect(exitCode).toBe(2);
  });

  it("adds the CLI's hint to a library error, exit 1, no stack", () => {
    const error = new LLMError({
      code: "llm_unreachable",
      message: "Could not reach http://localhost:1/v1.",
    });
    const { text, exitCode } = renderError(error, { verbose: false });
    expect(text.split("\n")).toEqual([
      expect.stringMatching(/^ragsynth: Could not reach .*--llm extractive/),
      "",
    ]);
    expect(exitCode).toBe(1);
  });

  it("keeps a multi-line message on one line", () => {
    const { text } = renderError(new RagsynthError({ code: "index_load", message: "Bad\nindex" }), {
      verbose: false,
    });
    expect(text).toBe("ragsynth: Bad index. Run again with --rebuild to rebuild the cached index.\n");
  });

  it("shows the stack and causes with --verbose", () => {
    const error = new RagsynthError({
      code: "no_object_generated",
      message: "Failed.",
      cause: new Error("inner"),
    });
    const { text } = renderError(error, { verbose: true });
    expect(text).toMatch(/^ragsynth: Failed\.\n/);
    expect(text).toContain("Caused by: Error: inner");
    expect(text).toContain("    at ");
  });

  it("exits 130 for an abort", () => {
    expect(renderError(new DOMException("aborted", "AbortError"), { verbose: false })).toEqual({
      text: "ragsynth: interrupted.\n",
      exitCode: 130,
    });
  });

  it("explains file-system errors", () => {
    const error = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT", path: "nope/" });
    expect(renderError(error, { verbose: false }).text).toBe(
      "ragsynth: No such file or folder: nope/. Check the path.\n",
    );
  });

  it("points unexpected errors at --verbose", () => {
    expect(renderError(new TypeError("x is undefined"), { verbose: false }).text).toBe(
      "ragsynth: Unexpected error: x is undefined. Run again with --verbose for the stack trace.\n",
    );
  });
});
