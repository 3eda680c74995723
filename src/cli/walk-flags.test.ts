import { describe, expect, it } from "vitest";
import { parseCommand } from "./parse-command.js";
import { UsageError } from "./usage-error.js";

const walkOf = (argv: string[]) => {
  const parsed = parseCommand(argv, {});
  if (parsed.command !== "index" && parsed.command !== "ask" && parsed.command !== "plan")
    throw new Error("no walk");
  return parsed.options.walk;
};

function usageMessage(argv: string[]): string {
  try {
    parseCommand(argv, {});
  } catch (error) {
    if (error instanceof UsageError) return `${error.message} ${error.hint ?? ""}`;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(" ")}`);
}

describe("the walk flags", () => {
  it("default to the walk's defaults", () => {
    expect(walkOf(["index", "docs"])).toEqual({
      include: [],
      exclude: [],
      readAs: {},
      noIgnore: false,
      hidden: false,
      followSymlinks: false,
    });
  });

  it("are read by index, ask and plan, repeatable where they take a value", () => {
    const argv = [
      "docs",
      "--include",
      "**/*.md",
      "--include",
      "*.txt",
      "--exclude",
      "drafts/**",
      "--read-as",
      "MDX=markdown",
      "--read-as",
      ".log=text",
      "--no-ignore",
      "--hidden",
      "--follow-symlinks",
    ];
    const expected = {
      include: ["**/*.md", "*.txt"],
      exclude: ["drafts/**"],
      readAs: { ".mdx": "markdown", ".log": "text" },
      noIgnore: true,
      hidden: true,
      followSymlinks: true,
    };
    expect(walkOf(["index", ...argv])).toEqual(expected);
    expect(walkOf(["ask", ...argv, "-q", "Why?"])).toEqual(expected);
    expect(walkOf(["plan", ...argv, "-q", "Why?"])).toEqual(expected);
  });

  it("refuses an empty glob and an unknown --read-as format, naming the formats", () => {
    expect(usageMessage(["index", "docs", "--exclude", " "])).toMatch(/--exclude needs a glob pattern/);
    expect(usageMessage(["index", "docs", "--read-as", ".mdx=markdwn"])).toMatch(
      /Unknown format "markdwn" in --read-as \.mdx=markdwn\. .*markdown.*Formats: code, csv, docx, email, epub, html, info, man, markdown, mdx, notebook, opendocument, pdf, pptx, rst, text, xlsx\./,
    );
    expect(usageMessage(["index", "docs", "--read-as", "mdx"])).toMatch(/expected <ending>=<format>/);
  });
});
