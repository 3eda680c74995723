import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pngOfSize } from "../../src/schema/png.test.util.js";
import { runCli, startCli, TEST_API_KEY } from "../cli/run-cli.js";

// Issue 25, rows 1 and 9: images a document references, or image files named, must not carry anything from
// outside the folders given to a model's server, and no image (huge, unreadable, not an image) may fail the ask.
const MARKER = "SECRET-MARKER-25-b7d3f0";
const ANSWER = "The deploy checklist says: run the smoke tests, then watch the error rate.";
let dir: string;
let docs: string;
let server: FakeOpenAIServer;
const okPng = pngOfSize(6, 6);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-security-images-"));
  docs = join(dir, "a", "b", "docs");
  await mkdir(docs, { recursive: true });
  await mkdir(join(dir, "secret"));
  // Outside the docs folder: valid PNGs carrying the marker, so only the folder rule can keep them out.
  const secretPng = Buffer.concat([pngOfSize(3, 3), Buffer.from(MARKER)]);
  await writeFile(join(dir, "secret", "s.png"), secretPng);
  await writeFile(join(dir, "a", "b", "x.png"), secretPng);
  await symlink("/proc/self/environ", join(docs, "env.png"));
  await symlink("/etc/passwd", join(docs, "passwd.png"));
  await writeFile(join(docs, "ok.png"), okPng);
  await writeFile(
    join(docs, "deploy.md"),
    [
      "# Deploy checklist",
      "",
      "Run the smoke tests, then watch the error rate for ten minutes after every deploy.",
      "",
      "![environment](env.png) ![users](passwd.png) ![a](../../../secret/s.png)",
      '![b](%2e%2e/%2e%2e/%2e%2e/secret/s.png) <img src="../x.png" alt="c"> ![d](..\\..\\..\\secret\\s.png)',
      `![e](file://${join(dir, "secret", "s.png")}) ![f](${join(dir, "secret", "s.png")})`,
      "![the deploy dashboard](ok.png)",
      "",
    ].join("\n"),
  );
  server = await startFakeOpenAIServer({ handler: () => ANSWER });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every chat request since `first`, and the bytes of every image it carried. */
function captured(first: number): { bodies: string[]; images: Buffer[] } {
  const bodies = server.requests
    .slice(first)
    .filter((request) => request.path === "/v1/chat/completions")
    .map((request) => JSON.stringify(request.body));
  const images = bodies.flatMap((body) =>
    [...body.matchAll(/data:[^;,"]*;base64,([A-Za-z0-9+/=]*)/g)].map((match) =>
      Buffer.from(match[1] ?? "", "base64"),
    ),
  );
  return { bodies, images };
}

function expectNoSecret({ bodies, images }: { bodies: string[]; images: Buffer[] }) {
  for (const content of [...bodies, ...images.map((bytes) => bytes.toString("latin1"))]) {
    expect(content).not.toContain(MARKER);
    expect(content).not.toContain(TEST_API_KEY);
    expect(content).not.toMatch(/root:x?:0:0/);
  }
}

const env = { RAGSYNTH_API_KEY: TEST_API_KEY, LEAK_TEST_MARKER: MARKER };
const question = "What does the deploy checklist say to watch?";

describe("row 1: images from outside the documents folder", () => {
  it("sends none of them with --vision: only the image inside, each other one named and skipped", async () => {
    const first = server.requests.length;
    const result = await runCli(
      ["ask", docs, "-q", question, "--llm", `${server.url}#vision-model`, "--vision", "--json"],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const sent = captured(first);
    expectNoSecret(sent);
    expect(sent.bodies).toHaveLength(1);
    expect(sent.images).toEqual([Buffer.from(okPng)]);
    const output = JSON.parse(result.stdout);
    expect(output.answer).toBe(ANSWER);
    const skipped = output.images.skipped as Array<{ src: string; code: string }>;
    expect(skipped.map(({ src, code }) => `${code} ${src}`)).toEqual([
      "not_a_file env.png",
      "outside_roots passwd.png",
      "outside_roots ../../../secret/s.png",
      "outside_roots %2e%2e/%2e%2e/%2e%2e/secret/s.png",
      "outside_roots ../x.png",
      // Markdown reads `\.` as an escaped dot, so this link's URL is `......\secret\s.png` (as a browser reads it).
      "missing ......\\secret\\s.png",
      `outside_roots file://${join(dir, "secret", "s.png")}`,
      `outside_roots ${join(dir, "secret", "s.png")}`,
    ]);
    expect(result.stderr).toMatch(
      /image passwd\.png \(in .*deploy\.md.*\) skipped: leads outside the folders given/,
    );
    expect(result.stderr).toContain("sent 1 local image to vision-model (--vision).");
  });

  it("without --vision sends no image at all", async () => {
    const first = server.requests.length;
    const result = await runCli(
      ["ask", docs, "-q", question, "--llm", `${server.url}#vision-model`, "--json"],
      {
        env,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const sent = captured(first);
    expect(sent.bodies).toHaveLength(1);
    expect(sent.images).toEqual([]);
    expectNoSecret(sent);
  });

  it("refuses image files named on the command line that are /proc files or not images", async () => {
    const first = server.requests.length;
    const result = await runCli(
      [
        "ask",
        join(docs, "deploy.md"),
        join(docs, "env.png"),
        join(docs, "passwd.png"),
        "-q",
        "environment users deploy checklist",
        "-k",
        "10",
        "--llm",
        `${server.url}#vision-model`,
        "--vision",
        "--json",
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const sent = captured(first);
    expectNoSecret(sent);
    const skipped = JSON.parse(result.stdout).images.skipped as Array<{ src: string; code: string }>;
    expect(skipped.filter(({ src }) => /(env|passwd)\.png$/.test(src)).map(({ code }) => code)).toEqual(
      expect.arrayContaining(["not_a_file", "not_an_image"]),
    );
  });
});

describe("row 9: images without limits", () => {
  it("skips a 60 MB and a 700 MB image, an unreadable one, a folder, a FIFO and a dangling link; answers from the text", async () => {
    const work = join(dir, "row9");
    const folder = join(work, "docs");
    const cacheHome = join(dir, "row9-cache");
    await mkdir(folder, { recursive: true });
    await mkdir(cacheHome);
    await writeFile(join(folder, "ok.png"), okPng);
    for (const [name, bytes] of [
      ["big.png", 60 * 1024 * 1024],
      ["huge.png", 700 * 1024 * 1024],
    ] as const) {
      await writeFile(join(folder, name), pngOfSize(4000, 4000, { headerOnly: true }));
      await truncate(join(folder, name), bytes); // sparse: no disk used
    }
    await writeFile(join(folder, "locked.png"), okPng);
    await chmod(join(folder, "locked.png"), 0o000);
    await mkdir(join(folder, "dir.png"));
    execFileSync("mkfifo", [join(folder, "fifo.png")]);
    await symlink(join(folder, "gone.png"), join(folder, "dangling.png"));
    await writeFile(
      join(folder, "deploy.md"),
      "# Deploy checklist\n\nRun the smoke tests, then watch the error rate.\n\n" +
        "![a](big.png) ![b](huge.png) ![c](locked.png) ![d](dir.png) ![e](fifo.png) ![f](dangling.png) ![g](ok.png)\n",
    );
    // root reads any file whatever its mode, so the CLI runs as an unprivileged user there: locked.png is then
    // unreadable, as it is for any user.
    for (const path of [dir, work, folder]) await chmod(path, 0o755);
    await chmod(cacheHome, 0o777);
    const asUser = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : {};
    const first = server.requests.length;
    const { done } = startCli(
      ["ask", folder, "-q", question, "--llm", `${server.url}#vision-model`, "--vision", "--json"],
      { env: { ...env, XDG_CACHE_HOME: cacheHome, HOME: cacheHome }, ...asUser },
    );
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.answer).toBe(ANSWER);
    const sent = captured(first);
    expect(sent.bodies).toHaveLength(1);
    expect(sent.images).toEqual([Buffer.from(okPng)]);
    // The request stays small: no 60 MB image inside it.
    expect(sent.bodies[0]?.length).toBeLessThan(100_000);
    const skipped = output.images.skipped as Array<{ src: string; code: string; reason: string }>;
    expect(Object.fromEntries(skipped.map(({ src, code }) => [src, code]))).toEqual({
      "big.png": "too_large",
      "huge.png": "too_large",
      "locked.png": "unreadable",
      "dir.png": "not_a_file",
      "fifo.png": "not_a_file",
      "dangling.png": "missing",
    });
    expect(skipped.find(({ src }) => src === "huge.png")?.reason).toBe(
      "734003200 bytes is over the 20000000-byte limit per image",
    );
    expect(result.stderr).toContain("the answer comes from the text of those chunks.");
    // The marker file outside was never part of this folder; the key never travels in a body.
    expect(await readFile(join(folder, "deploy.md"), "utf8")).not.toContain(MARKER);
    expectNoSecret(sent);
  });
});
