import { describe, expect, it } from "vitest";
import { parseCommand } from "./parse-command.js";
import { UsageError } from "./usage-error.js";

const parse = (argv: string[], env: Record<string, string> = {}) => parseCommand(argv, env);

describe("batch and worker command lines", () => {
  it("reads a batch: the questions file, the index, the output and the backend", () => {
    const parsed = parse([
      "batch",
      "q.jsonl",
      "--index",
      "docs/.ragsynth",
      "--out",
      "a.jsonl",
      "--mode",
      "refine",
    ]);
    expect(parsed).toMatchObject({
      command: "batch",
      options: {
        input: "q.jsonl",
        index: "docs/.ragsynth",
        out: "a.jsonl",
        redis: undefined,
        mode: "refine",
        attempts: 3,
      },
    });
    const redis = parse(["batch", "q.jsonl", "--index", "i", "--out", "o", "--requests-per-minute", "600"], {
      RAGSYNTH_REDIS_URL: "redis://127.0.0.1:6379",
    });
    expect(redis).toMatchObject({ options: { redis: "redis://127.0.0.1:6379", requestsPerMinute: 600 } });
  });

  it.each([
    [["batch", "--index", "i", "--out", "o"], /batch takes one questions file, got none/],
    [["batch", "q.jsonl", "--out", "o"], /batch needs --index/],
    [["batch", "q.jsonl", "--index", "i"], /batch needs --out/],
    [["batch", "--status"], /batch --status reads a BullMQ queue/],
    [["worker"], /worker needs a Redis/],
    [["batch", "q.jsonl", "--index", "i", "--out", "o", "--attempts", "0"], /--attempts/],
  ])("rejects %j with a usage error that says what to pass", (argv, message) => {
    expect(() => parse(argv)).toThrow(UsageError);
    expect(() => parse(argv)).toThrow(message);
  });

  it("reads --status and a worker's options", () => {
    expect(parse(["batch", "--status", "--redis", "redis://h:1", "--queue", "q"])).toMatchObject({
      options: { status: true, redis: "redis://h:1", queue: "q" },
    });
    expect(
      parse(["worker", "--redis", "redis://h:1", "--concurrency", "8", "--lock-duration", "5000"]),
    ).toEqual({
      command: "worker",
      options: {
        redis: "redis://h:1",
        queue: undefined,
        llm: undefined,
        embed: undefined,
        allowLLM: [],
        indexRoots: [],
        concurrency: 8,
        lockDurationMs: 5000,
        verbose: false,
      },
    });
  });

  it("reads the models a worker or batch allows and the worker's index roots (each repeatable)", () => {
    expect(
      parse([
        "worker",
        "--redis",
        "redis://h:1",
        "--llm",
        "openai:gpt-4o-mini",
        "--allow-llm",
        "openai:gpt-4o",
        "--allow-llm",
        "ollama:llama3.1",
        "--index-root",
        "/srv/a",
        "--index-root",
        "/srv/b",
      ]),
    ).toMatchObject({
      options: {
        llm: "openai:gpt-4o-mini",
        allowLLM: ["openai:gpt-4o", "ollama:llama3.1"],
        indexRoots: ["/srv/a", "/srv/b"],
      },
    });
    expect(
      parse(["batch", "q.jsonl", "--index", "i", "--out", "o", "--allow-llm", "openai:gpt-4o"]),
    ).toMatchObject({ options: { allowLLM: ["openai:gpt-4o"] } });
  });
});
