import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.resetModules();
});

describe("indexUpdated", () => {
  it("is true once a build wrote an added or changed document, and not for one that found nothing new", async () => {
    const { indexUpdated, noteIndexBuild } = await import("./index-updates.js");
    expect(indexUpdated()).toBe(false);
    noteIndexBuild({ sources: { added: [], changed: [] } });
    expect(indexUpdated()).toBe(false);
    noteIndexBuild({ sources: { added: [], changed: ["docs/a.md"] } });
    expect(indexUpdated()).toBe(true);
    noteIndexBuild({ sources: { added: [], changed: [] } });
    expect(indexUpdated()).toBe(true);
  });

  it("counts an added document", async () => {
    const { indexUpdated, noteIndexBuild } = await import("./index-updates.js");
    noteIndexBuild({ sources: { added: ["docs/new.md"], changed: [] } });
    expect(indexUpdated()).toBe(true);
  });
});
