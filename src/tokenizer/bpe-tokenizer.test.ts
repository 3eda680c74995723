import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { isTokenizerName, resolveTokenizer } from "./resolve-tokenizer.js";

describe("built-in BPE tokenizers", () => {
  it.each([
    ["cl100k_base", "hello world", 2],
    ["o200k_base", "hello world", 2],
    ["r50k_base", "hello world", 2],
  ] as const)("%s counts and encodes alike", (name, text, tokens) => {
    const tokenizer = resolveTokenizer(name);
    expect(isTokenizerName(name)).toBe(true);
    expect(tokenizer.count(text)).toBe(tokens);
    expect(tokenizer.encode(text)).toHaveLength(tokens);
    expect(tokenizer.count("")).toBe(0);
  });

  it("counts special-token strings as the plain text an API receives", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    expect(tokenizer.count("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("hands out a copy of its pre-tokenizer, so callers cannot disturb the shared pattern", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const pattern = tokenizer.pretokenizer as RegExp;
    expect(pattern).not.toBe(tokenizer.pretokenizer);
    pattern.lastIndex = 5;
    expect(tokenizer.count("hello world")).toBe(2);
    expect(Array.from("hello world".matchAll(tokenizer.pretokenizer as RegExp), (match) => match[0])).toEqual(
      ["hello", " world"],
    );
  });

  it("rejects unknown names, listing the known ones", () => {
    expect(() => resolveTokenizer("gpt2" as "r50k_base")).toThrow(InvalidArgumentError);
    expect(() => resolveTokenizer("gpt2" as "r50k_base")).toThrow('"r50k_base"');
  });
});
