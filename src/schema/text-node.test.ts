import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MetadataMode, TextNode } from "./text-node.js";

const node = new TextNode({
  id: "n1",
  text: "The text.",
  metadata: { file: "a.md", page: 3, tags: ["x", "y"], secret: "s" },
  excludedLlmMetadataKeys: ["secret"],
  excludedEmbedMetadataKeys: ["file", "page"],
});

describe("TextNode", () => {
  it("renders metadata lines, a blank line, then the text (LlamaIndex's format)", () => {
    expect(node.getContent(MetadataMode.ALL)).toBe(
      'file: a.md\npage: 3\ntags: ["x","y"]\nsecret: s\n\nThe text.',
    );
    expect(node.getContent(MetadataMode.LLM)).toBe('file: a.md\npage: 3\ntags: ["x","y"]\n\nThe text.');
    expect(node.getContent(MetadataMode.EMBED)).toBe('tags: ["x","y"]\nsecret: s\n\nThe text.');
  });

  it("gives just the text without metadata or in NONE mode (the default)", () => {
    expect(node.getContent()).toBe("The text.");
    expect(node.getContent(MetadataMode.NONE)).toBe("The text.");
    expect(new TextNode({ text: "plain" }).getContent(MetadataMode.ALL)).toBe("plain");
    expect(node.getMetadataStr(MetadataMode.NONE)).toBe("");
  });

  it("gets a random id unless given one", () => {
    const a = new TextNode({ text: "a" });
    const b = new TextNode({ text: "a" });
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.id).not.toBe(b.id);
    expect(node.id).toBe("n1");
  });

  it("copies with changes and leaves the original alone", () => {
    const changed = node.with({ text: "New." });
    expect(changed.text).toBe("New.");
    expect(changed.id).toBe("n1");
    expect(changed.metadata).toEqual(node.metadata);
    expect(node.text).toBe("The text.");
  });

  it("serializes every field", () => {
    expect(JSON.parse(JSON.stringify(new TextNode({ id: "i", text: "t" })))).toEqual({
      id: "i",
      text: "t",
      metadata: {},
      excludedLlmMetadataKeys: [],
      excludedEmbedMetadataKeys: [],
    });
  });

  it("rejects text that is not a string, naming the parameter", () => {
    expect(() => new TextNode({ text: 42 as unknown as string })).toThrow(InvalidArgumentError);
    expect(() => new TextNode({ text: undefined as unknown as string })).toThrow("`text`");
  });
});
