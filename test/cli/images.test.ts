import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli } from "./run-cli.js";

const FIXTURE = join(ROOT, "test", "fixtures", "images-doc");
let dir: string;
let docs: string;
let server: FakeOpenAIServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-cli-images-"));
  docs = join(dir, "docs");
  await cp(FIXTURE, docs, { recursive: true });
  server = await startFakeOpenAIServer({
    handler: ({ images }) => `I see ${images.length} pictures: an architecture diagram and a dashboard.`,
  });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("ragsynth ask over a Markdown file with pictures", () => {
  it("sends the images a retrieved chunk references, with the chunk, to a vision model", async () => {
    const first = server.requests.length;
    const result = await runCli([
      "ask",
      docs,
      "-q",
      "How is the service monitored after deployment?",
      "--llm",
      `${server.url}#vision-model`,
      "--vision",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.answer).toBe("I see 2 pictures: an architecture diagram and a dashboard.");
    expect(output.images).toEqual({ count: 2, readAs: "pixels", skipped: [], withheld: 0 });
    // Local files went to a server: said, with how many.
    expect(result.stderr).toContain("ragsynth: note: sent 2 local images to vision-model (--vision).");
    const calls = server.requests.slice(first).filter((request) => request.path === "/v1/chat/completions");
    expect(calls).toHaveLength(1);
    const user = (calls[0]?.body as { messages?: Array<{ content: unknown }> } | undefined)?.messages?.at(-1);
    const parts = user?.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    const chunkAt = parts.findIndex((part) => part.text?.includes("watch the request rate"));
    const imageAt = parts
      .map((part, index) => (part.type === "image_url" ? index : -1))
      .filter((index) => index >= 0);
    expect(chunkAt).toBeGreaterThan(-1);
    expect(imageAt).toHaveLength(2);
    const expected = await Promise.all(
      ["architecture.png", "dashboard.png"].map(
        async (name) =>
          `data:image/png;base64,${(await readFile(join(FIXTURE, "img", name))).toString("base64")}`,
      ),
    );
    expect(imageAt.map((index) => parts[index]?.image_url?.url)).toEqual(expected);
    // The captions travel too, as text beside their pictures.
    expect(parts.some((part) => part.text?.startsWith("Dashboard chart: requests per second"))).toBe(true);
  });

  it("offline, answers from the alt text and says the pictures were read by their alt text only", async () => {
    const result = await runCli([
      "ask",
      docs,
      "-q",
      "What does the dashboard chart show about requests per second?",
      "--llm",
      "extractive",
      "--no-stream",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "Dashboard chart: requests per second rising from 10 to 42 over the week",
    );
    expect(result.stderr).toMatch(
      /2 images were read by their alt text and captions only: the offline answerer cannot see pixels/,
    );
  });

  it("plan shows the image tokens each mode would send", async () => {
    const result = await runCli([
      "plan",
      docs,
      "-q",
      "How is the service monitored?",
      "--llm",
      `${server.url}#vision-model`,
      "--vision",
      "--mode",
      "compact",
      "--mode",
      "accumulate",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/image tokens/);
    // Two small PNGs, high detail by default: 85 + 170 × 1 tile each.
    expect(result.stdout).toMatch(/^compact\s+1\s+[\d,]+\s+510\s/m);
    expect(result.stdout).toMatch(/^accumulate\s+\d+\s+[\d,]+\s+510\s/m);
  });
});
