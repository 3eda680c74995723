import { describe, expect, it } from "vitest";
import { renderTracePage } from "./render-trace-page.js";
import { buildTracePageData } from "./trace-page-data.js";

const page = (sources: Parameters<typeof buildTracePageData>[0]["sources"]) =>
  renderTracePage(
    buildTracePageData({
      events: [],
      sources,
      query: "q",
      answer: "a",
      model: "m",
      contextWindow: 1000,
      numOutput: 100,
    }),
  );

describe("trace page: where each source comes from", () => {
  it("shows a source's location and links its file", () => {
    const html = page([
      {
        name: "docs/guide.md",
        text: "The timeout is 30 s.",
        location: "docs/guide.md:7–13 › Configuration › Timeouts",
        href: "file:///srv/docs/guide.md#L7",
      },
    ]);
    expect(html).toContain('<div class="where">docs/guide.md:7–13 › Configuration › Timeouts</div>');
    expect(html).toContain('<a class="open" href="file:///srv/docs/guide.md#L7">');
  });

  it("drops a link that is not a file: URL, and escapes the location", () => {
    const html = page([
      { name: "x.md", text: "x", location: "<b>x.md</b>", href: "javascript:alert(1)" },
      { name: "y.md", text: "y", href: "https://example.com/y.md" },
    ]);
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("https://example.com");
    expect(html).toContain("&lt;b&gt;x.md&lt;/b&gt;");
  });
});
