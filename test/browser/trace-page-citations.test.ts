import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, TEST_API_KEY } from "../cli/run-cli.js";

// The trace page of `ask --citations`, opened in Debian's Chromium: each marker links to its numbered source,
// an unsupported citation is marked, an invalid one is gone.
const CHROMIUM = process.env.RAGSYNTH_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === "true") {
  throw new Error(`CI=true but no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium.`);
}
const ANSWER = "The default response mode is compact [1]. It was chosen by moon penguins [2]. See also [99].";

let browser: BrowserContext;
let server: FakeOpenAIServer;
let cleanup: () => Promise<void>;
let tracePath: string;
let profile: string;

beforeAll(async () => {
  if (!available) return;
  let dir: string;
  ({ dir, cleanup } = await copyExampleDocs());
  server = await startFakeOpenAIServer({ handler: () => ANSWER });
  tracePath = join(dir, "cited.html");
  const asked = await runCli(
    [
      "ask",
      "docs",
      "-q",
      "What is the default response mode?",
      "--llm",
      `${server.url}#fake-model`,
      "--citations",
      "--no-stream",
      "--report",
      tracePath,
    ],
    { env: { OPENAI_API_KEY: TEST_API_KEY }, cwd: dir },
  );
  expect(asked.code, asked.stderr).toBe(0);
  profile = await mkdtemp(join(tmpdir(), "ragsynth-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cleanup?.();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe.skipIf(!available)("trace page of a cited answer in headless Chromium", () => {
  it("links each marker to its source, marks the unsupported one, and shows no invalid marker", async () => {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(tracePath).href);
    const answer = page.locator("header .answer");
    expect(await answer.textContent()).not.toContain("[99]");
    const links = answer.locator(".marker a.cite");
    expect(await links.count()).toBe(2);
    expect(await links.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("href")))).toEqual([
      "#source-1",
      "#source-2",
    ]);
    // The moon penguins appear in no source: that citation, and only it, is marked unsupported.
    expect(await answer.locator("a.cite.unsupported").count()).toBe(1);
    expect(await answer.locator("a.cite.unsupported").getAttribute("href")).toBe("#source-2");
    // The page's sources are the numbered pieces: source 1 exists and names a file of the corpus.
    expect(await page.locator("#source-1 .name").textContent()).toMatch(/^\[1\] .*\.md/);

    // Clicking a marker shows its source in the details and jumps to its card.
    await links.first().click();
    await expect.poll(() => page.locator("#details").getAttribute("data-showing")).toBe("source-0");
    expect(new URL(page.url()).hash).toBe("#source-1");
    expect(await page.locator("#source-1.selected").count()).toBe(1);
    await page.close();
  });
});

it.skipIf(available)(`cited trace page test skipped: no Chromium at ${CHROMIUM}`, () => {});
