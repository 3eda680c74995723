import { describe, expect, it } from "vitest";
import { jsonEscape } from "./json-escape.js";

describe("jsonEscape", () => {
  it("writes a character as a JSON \\u escape, which parses back to it", () => {
    for (const character of ["\u001b", "\n", "\u009b", "\u202e", "\u0000"]) {
      expect(jsonEscape(character)).toMatch(/^\\u[0-9a-f]{4}$/);
      expect(JSON.parse(`"${jsonEscape(character)}"`)).toBe(character);
    }
    expect(jsonEscape("\u202e")).toBe("\\u202e");
  });
});
