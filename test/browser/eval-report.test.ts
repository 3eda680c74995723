import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, ROOT, runCli } from "../cli/run-cli.js";

// The eval page from a real offline `ragsynth eval --report` run, opened in Debian's Chromium (headless, driven
// by playwright-core; no browser is downloaded), as the trace page test does.
const CHROMIUM = process.env.RAGSYNTH_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === "true") {
  throw new Error(`CI=true but no Chromium at ${CHROMIUM}: apt-get install chromium.`);
}
const ARTIFACTS = join(ROOT, "test-artifacts");
const QUESTIONS = [
  {
    id: "default-mode",
    query: "What is the default response mode?",
    relevant: ["response-modes.md"],
    answer_hint: "compact",
  },
  {
    id: "optimizer",
    query: "What does the sentence optimizer drop?",
    relevant: ["optimizer.md"],
    answer_hint: "sentences",
  },
  {
    id: "unanswerable",
    query: "Which database does ragsynth ship?",
    relevant: ["database.md"],
    answer_hint: "postgres",
  },
];

let browser: BrowserContext;
let cleanup: () => Promise<void>;
let pagePath: string;
let profile: string;

beforeAll(async () => {
  if (!available) return;
  let dir: string;
  let docs: string;
  ({ dir, docs, cleanup } = await copyExampleDocs());
  const questions = join(dir, "questions.jsonl");
  await writeFile(questions, QUESTIONS.map((question) => JSON.stringify(question)).join("\n"));
  pagePath = join(dir, "eval.html");
  const run = await runCli(["eval", questions, docs, "--report", pagePath]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(`wrote the eval page to ${pagePath}`);
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
  await cleanup?.();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe.skipIf(!available)(`eval page in headless Chromium (${CHROMIUM})`, () => {
  it("draws a point per mode, and clicking one shows that mode's questions with answer, sources and why it failed", async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await page.goto(pathToFileURL(pagePath).href);
    const modes = await page
      .locator("#chart .point")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-mode")));
    expect(modes).toEqual(["compact", "refine", "tree_summarize", "simple_summarize"]);
    expect(await page.locator("#chart .point.best").count()).toBe(1);
    expect(await page.locator("#modes tr.mode-row").count()).toBe(4);

    // Only the first mode's drill-down is shown at first.
    expect(await page.locator("#drill .mode-drill:visible").count()).toBe(1);
    await page.locator('#chart .point[data-mode="refine"] circle').click();
    expect(await page.locator("#drill").getAttribute("data-mode")).toBe("refine");
    expect(await page.locator("#chart .point.selected").getAttribute("data-mode")).toBe("refine");
    const shown = page.locator('#drill .mode-drill[data-mode="refine"]');
    expect(await shown.isVisible()).toBe(true);
    expect(await page.locator('#drill .mode-drill[data-mode="compact"]').isVisible()).toBe(false);
    const question = shown.locator('.question[data-id="unanswerable"]');
    expect(await question.locator("summary").textContent()).toContain("Which database does ragsynth ship?");
    await question.locator("summary").click();
    expect(await question.locator(".answer").isVisible()).toBe(true);
    const failures = await question.locator(".failures li").allTextContents();
    expect(failures).toEqual(['answer lacks "postgres"', "no relevant file in the top 4"]);
    expect(await question.locator(".source").count()).toBe(4);

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "eval-page.png"), fullPage: true });
    expect(requests).toEqual([]); // self-contained: nothing fetched
    await page.close();
  });
});

it.skipIf(available)(
  `eval page browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`,
  () => {},
);
