import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, ROOT, runCli, TEST_API_KEY } from "../cli/run-cli.js";

// The trace and plan pages from real CLI runs against the fake OpenAI server, opened in Debian's Chromium
// (headless, driven by playwright-core; no browser is downloaded). One browser launch for the whole file.
const CHROMIUM = process.env.RAGSYNTH_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === "true") {
  throw new Error(
    `CI=true but no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium (apt-get install chromium).`,
  );
}
/** Screenshots land here (git-ignored), for a person to look at. */
const ARTIFACTS = join(ROOT, "test-artifacts");

let browser: BrowserContext;
let server: FakeOpenAIServer;
let dir: string;
let cleanup: () => Promise<void>;
let tracePath: string;
let planPath: string;
let profile: string;

beforeAll(async () => {
  if (!available) return;
  ({ dir, cleanup } = await copyExampleDocs());
  const docs = "docs"; // relative, run from `dir`: the pages (and the README screenshot) name sources docs/…
  server = await startFakeOpenAIServer({
    latencyMs: 120,
    handler: ({ index }) => ({
      text: `Summary ${index}: modes trade calls for context; the budget reserves numOutput.`,
    }),
    // The second request is rate limited once: the page must mark the wait and the retried call.
    faults: [{ kind: "status", status: 429, headers: { "retry-after-ms": "200" }, requests: [1] }],
  });
  tracePath = join(dir, "trace.html");
  planPath = join(dir, "plan.html");
  const common = [
    "-q",
    "How do the response modes use the token budget?",
    "--top-k",
    "6",
    "--context-window",
    "800",
    "--num-output",
    "64",
  ];
  const env = { OPENAI_API_KEY: TEST_API_KEY };
  const indexed = await runCli(["index", docs], { cwd: dir }); // once, so the two runs below share it
  expect(indexed.code, indexed.stderr).toBe(0);
  const [asked, planned] = await Promise.all([
    runCli(
      [
        "ask",
        docs,
        ...common,
        "--llm",
        `${server.url}#fake-model`,
        "--mode",
        "tree_summarize",
        "--no-stream",
        "--report",
        tracePath,
      ],
      { env, cwd: dir },
    ),
    runCli(["plan", docs, ...common, "--price-in", "0.15", "--price-out", "0.6", "--report", planPath], {
      cwd: dir,
    }),
  ]);
  expect(asked.code, asked.stderr).toBe(0);
  expect(asked.stderr).toContain(`wrote the trace page to ${tracePath}`);
  expect(planned.code, planned.stderr).toBe(0);
  // A fresh profile directory (launchPersistentContext is Playwright's form of --user-data-dir), headless.
  profile = await mkdtemp(join(tmpdir(), "ragsynth-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cleanup?.();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe.skipIf(!available)(`trace page in headless Chromium (${CHROMIUM})`, () => {
  it("shows every call on the timeline, the tree level by level, the sources, and clicking a call shows its sources", async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await page.goto(pathToFileURL(tracePath).href);
    const calls = await page.locator("#timeline .call").count();
    const cards = await page.locator("#structure .card").count();
    expect(calls).toBeGreaterThanOrEqual(3); // leaves and a root
    expect(cards).toBe(calls);
    const levels = await page
      .locator("#structure .round")
      .evaluateAll((nodes) => nodes.map((node) => node.querySelector("h3")?.textContent));
    expect(levels[0]).toBe("Level 0");
    expect(levels.at(-1)).toMatch(/\(root\)/);
    expect(await page.locator("#timeline .call.retried").count()).toBe(1); // the 429'd call
    expect(await page.locator("#timeline .wait").count()).toBe(1);
    expect(await page.locator("#timeline .wait").textContent()).toContain("429");
    const sources = await page.locator("#sources .source").count();
    expect(sources).toBeGreaterThan(1);

    // Click the first leaf: the details list its sources, and exactly those are marked.
    const leaf = page.locator('#structure .round[data-round="0"] .card').first();
    const leafId = await leaf.getAttribute("data-call");
    await leaf.click();
    await expect.poll(() => page.locator("#details").getAttribute("data-showing")).toBe(`call-${leafId}`);
    const listed = await page.locator("#details ul li").allTextContents();
    const reached = await page.locator("#sources .source.reached .name").allTextContents();
    expect(listed.length).toBeGreaterThan(0);
    expect(reached.length).toBe(listed.length);
    for (const [index, item] of listed.entries())
      expect(reached[index]).toContain(item.replace(/^\[\d+\] /, ""));
    expect(await page.locator(`#timeline .call.selected[data-call="${leafId}"]`).count()).toBe(1);
    // The count on the card is what the packer put in the call: the start event's nodeIds, as the page embeds them.
    const embedded = JSON.parse((await page.locator("#page-data").textContent()) ?? "{}") as {
      calls: Array<{ id: number; sources: number[] }>;
    };
    const leafData = embedded.calls.find((item) => String(item.id) === leafId);
    expect(await leaf.locator("[data-sources]").getAttribute("data-sources")).toBe(
      String(leafData?.sources.length),
    );
    expect(listed.length).toBe(leafData?.sources.length);
    // The fake server reports usage: the tokens are labelled the server's.
    expect(await leaf.locator("[data-counted-by]").getAttribute("data-counted-by")).toBe("server");

    // Click the root: it read the leaves' answers, which are marked on the page.
    const root = page.locator("#structure .round").last().locator(".card").first();
    await root.click();
    expect(await page.locator("#details h3", { hasText: "Answers it read" }).count()).toBe(1);
    expect(await page.locator("#structure .round[data-round='0'] .card.reached").count()).toBeGreaterThan(0);

    // Click a source: the calls it reached are marked.
    await page.locator("#sources .source").first().click();
    expect(await page.locator("#details").getAttribute("data-showing")).toBe("source-0");
    expect(await page.locator("#timeline .call.reached").count()).toBeGreaterThan(0);

    // The details pane stays in view while the page scrolls to the bottom (CSS sticky).
    await leaf.click();
    await page.setViewportSize({ width: 1280, height: 420 });
    await page.mouse.wheel(0, 100_000); // to the bottom of the page, far below the structure
    await expect
      .poll(async () => {
        // Most of the pane is on screen (at the very end the page's bottom padding may push it up a little).
        const box = await page.locator("#details").boundingBox();
        if (!box) return false;
        const visible = Math.min(box.y + box.height, 420) - Math.max(box.y, 0);
        return visible >= 0.8 * Math.min(box.height, 420);
      })
      .toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.mouse.wheel(0, -100_000);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "trace-page.png"), fullPage: true });
    const html = await page.content();
    expect(html).not.toContain(TEST_API_KEY);
    expect(requests).toEqual([]); // self-contained: nothing fetched
    await page.close();
  });

  it("plan page: every mode side by side as bars of calls, prompt tokens and cost", async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(pathToFileURL(planPath).href);
    const modes = await page
      .locator("#modes .mode-name")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-mode")));
    expect(modes).toEqual(expect.arrayContaining(["compact", "refine", "tree_summarize", "accumulate"]));
    expect(await page.locator('#modes .metric[data-metric="llmCalls"]').count()).toBe(modes.length);
    expect(await page.locator('#modes .metric[data-metric="promptTokens"]').count()).toBe(modes.length);
    expect(await page.locator('#modes .metric[data-metric="costUsd"]').count()).toBe(modes.length);
    // The widest calls bar belongs to the mode with the most calls.
    const widths = await page.locator('#modes .metric[data-metric="llmCalls"]').evaluateAll((nodes) =>
      nodes.map((node) => ({
        max: Number(node.getAttribute("data-max")),
        width:
          (
            node.querySelector(".min") as unknown as { getBoundingClientRect(): { width: number } }
          ).getBoundingClientRect().width +
          (
            node.querySelector(".range") as unknown as { getBoundingClientRect(): { width: number } }
          ).getBoundingClientRect().width,
      })),
    );
    const widest = widths.reduce((best, item) => (item.width > best.width ? item : best));
    expect(widest.max).toBe(Math.max(...widths.map((item) => item.max)));
    await page.screenshot({ path: join(ARTIFACTS, "plan-page.png"), fullPage: true });
    await page.close();
  });
});

it.skipIf(available)(
  `trace page browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set RAGSYNTH_CHROMIUM)`,
  () => {},
);
