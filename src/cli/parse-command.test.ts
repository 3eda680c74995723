import { describe, expect, it } from "vitest";
import { RESPONSE_MODES } from "../synthesizer/types.js";
import { parseCommand } from "./parse-command.js";
import { UsageError } from "./usage-error.js";

const parse = (argv: string[], env: Record<string, string | undefined> = {}) => parseCommand(argv, env);

function usageError(argv: string[]): UsageError {
  try {
    parse(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(" ")}`);
}

describe("parseCommand", () => {
  it("reads ask with its defaults", () => {
    const parsed = parse(["ask", "docs", "notes.md", "--query", "What?"]);
    expect(parsed).toMatchObject({
      command: "ask",
      options: {
        paths: ["docs", "notes.md"],
        query: "What?",
        mode: "compact",
        topK: 4,
        concurrency: "adaptive",
        stream: undefined,
        json: false,
        trace: false,
        llm: undefined,
        embed: undefined,
      },
    });
  });

  it("takes the question after `--`, joined", () => {
    const parsed = parse(["ask", "docs", "--mode", "refine", "--", "What", "is", "--this?"]);
    expect(parsed).toMatchObject({
      command: "ask",
      options: { paths: ["docs"], query: "What is --this?", mode: "refine" },
    });
  });

  it("falls back to RAGSYNTH_LLM and RAGSYNTH_EMBED, flags first", () => {
    const env = { RAGSYNTH_LLM: "ollama:llama3.1", RAGSYNTH_EMBED: "openai:text-embedding-3-small" };
    expect(parse(["ask", "d", "-q", "x"], env)).toMatchObject({
      options: { llm: "ollama:llama3.1", embed: "openai:text-embedding-3-small" },
    });
    expect(parse(["ask", "d", "-q", "x", "--llm", "extractive"], env)).toMatchObject({
      options: { llm: "extractive" },
    });
  });

  it("lets the last of --stream / --no-stream win", () => {
    expect(parse(["ask", "d", "-q", "x", "--stream", "--no-stream"])).toMatchObject({
      options: { stream: false },
    });
    expect(parse(["ask", "d", "-q", "x", "--no-stream", "--stream"])).toMatchObject({
      options: { stream: true },
    });
  });

  it("reads --retrieval, and lists the valid modes for an unknown one", () => {
    expect(parse(["ask", "docs", "-q", "x"])).toMatchObject({ options: { retrieval: undefined } });
    expect(parse(["plan", "docs", "-q", "x", "--retrieval", "Hybrid"])).toMatchObject({
      options: { retrieval: "hybrid" },
    });
    const error = usageError(["ask", "docs", "-q", "x", "--retrieval", "bm25"]);
    expect(error.message).toContain('Unknown --retrieval "bm25"');
    expect(error.hint).toContain("lexical, dense, hybrid");
  });

  it("reads the optimizer spec", () => {
    expect(parse(["ask", "d", "-q", "x", "--optimizer", "percentile=0.5,threshold=0.2"])).toMatchObject({
      options: { optimizer: { percentileCutoff: 0.5, thresholdCutoff: 0.2 } },
    });
  });

  it("plans every mode unless told, and accepts lists", () => {
    expect(parse(["plan", "d", "-q", "x"])).toMatchObject({ options: { modes: [...RESPONSE_MODES] } });
    expect(parse(["plan", "d", "-q", "x", "--mode", "refine,compact", "-m", "tree-summarize"])).toMatchObject(
      {
        options: { modes: ["refine", "compact", "tree_summarize"] },
      },
    );
    expect(parse(["plan", "d", "-q", "x", "--price-in", "0.15", "--price-out", "0.6"])).toMatchObject({
      options: { priceIn: 0.15, priceOut: 0.6 },
    });
  });

  it("routes help and version", () => {
    expect(parse([])).toEqual({ command: "help", topic: undefined });
    expect(parse(["--version"])).toEqual({ command: "version" });
    expect(parse(["plan", "--help"])).toEqual({ command: "help", topic: "plan" });
    expect(parse(["help", "index"])).toEqual({ command: "help", topic: "index" });
  });

  it("completes --chunk-size and --chunk-overlap as the splitter takes them", () => {
    const chunking = (...flags: string[]) =>
      (parse(["ask", "d", "-q", "x", ...flags]) as { options: { chunking?: unknown } }).options.chunking;
    expect(chunking()).toBeUndefined();
    expect(chunking("--chunk-size", "50")).toEqual({ chunkSize: 50, chunkOverlap: 10 });
    expect(chunking("--chunk-size", "4096")).toEqual({ chunkSize: 4096, chunkOverlap: 200 });
    expect(chunking("--chunk-overlap", "0")).toEqual({ chunkSize: 1024, chunkOverlap: 0 });
  });

  it("lists every valid mode for an unknown one", () => {
    const error = usageError(["ask", "d", "-q", "x", "--mode", "fast"]);
    expect(error.message).toBe('Unknown response mode "fast".');
    for (const mode of RESPONSE_MODES) expect(error.hint).toContain(mode);
  });

  it("suggests the option meant, and lists the valid ones", () => {
    const error = usageError(["ask", "d", "-q", "x", "--mod", "refine"]);
    expect(error.message).toBe("Unknown option --mod for ask.");
    expect(error.hint).toMatch(/^Did you mean --mode\? Valid options: --query, --mode/);
  });

  it.each([
    [["ask", "-q", "x"], /needs at least one file or folder/],
    [["ask", "d"], /needs a question/],
    [["ask", "d", "-q", "x", "--", "y"], /either --query or after `--`/],
    [["ask", "d", "-q", "x", "--top-k", "0"], /--top-k to be a whole number/],
    [["ask", "d", "-q", "x", "--context-window", "4k"], /--context-window to be a whole number/],
    [["ask", "d", "-q", "x", "--similarity-cutoff", "high"], /--similarity-cutoff to be a number/],
    [["ask", "d", "-q", "x", "--optimizer", "percentile=1.5"], /percentile to be above 0 and at most 1/],
    [["ask", "d", "-q", "x", "--optimizer", "best"], /expected key=value/],
    [["ask", "d", "-q", "x", "-m", "refine", "-m", "compact"], /ask takes one --mode/],
    [["ask", "d", "-q"], /Option -q needs a value|Option --query needs a value/],
    [["ask", "d", "-q", "x", "--json=yes"], /--json takes no value/],
    [["plan", "d", "-q", "x", "--price-in", "-1"], /--price-in to be 0 or more|needs a value/],
    [["index", "d", "--", "why"], /index takes no question/],
    [
      ["ask", "d", "-q", "x", "--chunk-size", "50", "--chunk-overlap", "80"],
      /--chunk-overlap \(80\) must be less/,
    ],
    [
      ["plan", "d", "-q", "x", "--chunk-overlap", "1024"],
      /--chunk-overlap \(1024\) must be less than --chunk-size \(1024\)/,
    ],
    [["asq"], /Unknown command "asq"/],
  ])("rejects %j", (argv, message) => {
    expect(usageError(argv as string[]).message).toMatch(message);
  });
});

describe("the question from stdin", () => {
  const withStdin = (argv: string[], stdin: string | undefined) => {
    const reads: boolean[] = [];
    const parsed = parseCommand(
      argv,
      {},
      {
        readStdin: (explicit) => {
          reads.push(explicit);
          return stdin;
        },
      },
    );
    return { query: parsed.command === "ask" ? parsed.options.query : undefined, reads };
  };

  it("reads `-q -` from stdin, not the dash as the question", () => {
    expect(withStdin(["ask", "docs", "-q", "-"], "What is compact?\n")).toEqual({
      query: "What is compact?",
      reads: [true],
    });
  });

  it("reads a piped question when none is given, and leaves stdin alone when one is", () => {
    expect(withStdin(["ask", "docs"], "Piped question\n")).toEqual({
      query: "Piped question",
      reads: [false],
    });
    expect(withStdin(["ask", "docs", "-q", "Given"], "ignored")).toEqual({ query: "Given", reads: [] });
  });

  it("says what is wrong when stdin holds nothing or far too much", () => {
    expect(() => withStdin(["ask", "docs", "-q", "-"], "  \n")).toThrow(/ask needs a question/);
    expect(() => withStdin(["ask", "docs", "-q", "-"], undefined)).toThrow(/stdin could not be read/);
    expect(() => withStdin(["ask", "docs"], "x".repeat(100_001))).toThrow(
      /Expected a question of at most 100,000 characters on stdin, got 100,001/,
    );
  });
});
