// The public doors stay small and say one thing each: the root is what a user builds with (at most 70 values),
// ragsynth/extend only what the README names for extenders (at most 35), and no name is in two doors.
import { readFileSync } from "node:fs";
import * as root from "ragsynth";
import * as batch from "ragsynth/batch";
import * as extend from "ragsynth/extend";
import * as langchain from "ragsynth/langchain";
import * as testing from "ragsynth/testing";
import { describe, expect, it } from "vitest";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const doors = { root, extend, batch, langchain, testing };

describe("the public doors", () => {
  it("the root holds at most 70 values and ragsynth/extend at most 35", () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(70);
    expect(Object.keys(extend).length).toBeLessThanOrEqual(35);
  });

  it("every value of ragsynth/extend is named in the README", () => {
    const unnamed = Object.keys(extend).filter((name) => !new RegExp(`\`${name}\``).test(readme));
    expect(unnamed).toEqual([]);
  });

  it("no value is exported from two doors", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [door, module] of Object.entries(doors)) {
      for (const name of Object.keys(module)) {
        const first = seen.get(name);
        if (first) twice.push(`${name} (${first}, ${door})`);
        else seen.set(name, door);
      }
    }
    expect(twice).toEqual([]);
  });

  it("the Redis/BullMQ plumbing is in ragsynth/batch, not in the root", () => {
    for (const name of [
      "createBullMQRunner",
      "startBatchWorker",
      "createQueueLLM",
      "RedisCallCache",
      "checkRedis",
    ]) {
      expect(name in batch, name).toBe(true);
      expect(name in root, name).toBe(false);
    }
  });
});
