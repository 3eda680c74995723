import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path, { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { isInside, realRoots, resolveInsideRoots } from "./inside-roots.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "ragsynth-roots-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const docs = join(base, "docs");
const outside = join(base, "outside");
mkdirSync(join(docs, "sub"), { recursive: true });
mkdirSync(outside);
writeFileSync(join(docs, "a.md"), "inside");
writeFileSync(join(docs, "..hidden.md"), "inside, oddly named");
writeFileSync(join(outside, "secret.txt"), "outside");
symlinkSync(join(outside, "secret.txt"), join(docs, "leak.md"));
symlinkSync(join(docs, "a.md"), join(docs, "sub", "alias.md"));
symlinkSync(join(docs, "leak.md"), join(docs, "chain.md"));
symlinkSync("/proc/self/environ", join(docs, "env.png"));
symlinkSync(join(docs, "gone.md"), join(docs, "dangling.md"));
writeFileSync(join(base, "docs-sibling.md"), "beside the root, sharing its prefix");

describe("isInside", () => {
  it("is true for the root and what lies below it, false for siblings sharing a prefix and parents", () => {
    expect(isInside("/a/docs", "/a/docs")).toBe(true);
    expect(isInside("/a/docs/x/y.md", "/a/docs")).toBe(true);
    expect(isInside("/a/docs/..x.md", "/a/docs")).toBe(true);
    expect(isInside("/a/docs-sibling.md", "/a/docs")).toBe(false);
    expect(isInside("/a", "/a/docs")).toBe(false);
    expect(isInside("/etc/passwd", "/a/docs")).toBe(false);
  });
});

describe("realRoots", () => {
  it("resolves the roots given and leaves out the missing ones", async () => {
    expect(await realRoots([docs, join(base, "nope")])).toEqual([docs]);
  });
});

describe("resolveInsideRoots", () => {
  const roots = [docs];

  it("accepts a regular file inside, also through a symlink that stays inside", () => {
    const direct = resolveInsideRoots(join(docs, "a.md"), roots);
    expect(direct).toMatchObject({ ok: true, realPath: join(docs, "a.md") });
    expect(resolveInsideRoots(join(docs, "sub", "alias.md"), roots)).toMatchObject({
      ok: true,
      realPath: join(docs, "a.md"),
    });
    expect(resolveInsideRoots(join(docs, "..hidden.md"), roots)).toMatchObject({ ok: true });
  });

  it("refuses symlinks leading out, chains of them, ../ and sibling folders sharing the root's prefix", () => {
    for (const candidate of [
      join(docs, "leak.md"),
      join(docs, "chain.md"),
      join(docs, "..", "outside", "secret.txt"),
      join(base, "docs-sibling.md"),
    ]) {
      expect(resolveInsideRoots(candidate, roots), candidate).toMatchObject({
        ok: false,
        code: "outside_roots",
      });
    }
  });

  it("refuses /proc files even when a root contains them, and devices, folders and missing files", () => {
    expect(resolveInsideRoots(join(docs, "env.png"), ["/"])).toMatchObject({
      ok: false,
      code: "not_a_file",
    });
    expect(resolveInsideRoots("/proc/self/environ", ["/proc"])).toMatchObject({ ok: false });
    expect(resolveInsideRoots("/dev/null", ["/"])).toMatchObject({ ok: false, code: "not_a_file" });
    expect(resolveInsideRoots(join(docs, "sub"), roots)).toMatchObject({
      ok: false,
      code: "not_a_file",
    });
    expect(resolveInsideRoots(join(docs, "dangling.md"), roots)).toMatchObject({
      ok: false,
      code: "missing",
    });
  });

  it("takes a walk's real path when lstat finds a regular file there, and resolves in full when it does not", () => {
    const walked = resolveInsideRoots(join(docs, "a.md"), roots, join(docs, "a.md"));
    expect(walked).toMatchObject({ ok: true, realPath: join(docs, "a.md") });
    expect(walked.ok && walked.stats.isFile()).toBe(true);
    // The walk saw a regular file, a link out stands there now: resolved in full, and refused.
    expect(resolveInsideRoots(join(docs, "leak.md"), roots, join(docs, "leak.md"))).toMatchObject({
      ok: false,
      code: "outside_roots",
    });
    // A walked path is held to the roots and the system folders as a resolved one is.
    expect(resolveInsideRoots(join(outside, "secret.txt"), roots, join(outside, "secret.txt"))).toMatchObject(
      { ok: false, code: "outside_roots" },
    );
    expect(resolveInsideRoots("/proc/self/status", ["/"], "/proc/self/status")).toMatchObject({
      ok: false,
      code: "not_a_file",
    });
    expect(resolveInsideRoots(join(docs, "gone.md"), roots, join(docs, "gone.md"))).toMatchObject({
      ok: false,
      code: "missing",
    });
  });
});

describe("isInside's prefix test", () => {
  it("answers as path.relative does, for any POSIX paths (dots, empty segments, trailing slashes)", () => {
    /** The rule as `path.relative` gives it, the one the prefix test stands in for. */
    const byRelative = (real: string, root: string) => {
      if (real === root) return true;
      const relative = path.relative(root, real);
      return (
        relative !== "" && relative !== ".." && !relative.startsWith("../") && !path.isAbsolute(relative)
      );
    };
    const segment = fc.constantFrom("a", "b", "ab", "..", ".", "", "..x", "x..", ".a", "a.b");
    const posix = fc
      .array(segment, { maxLength: 5 })
      .chain((segments) => fc.constantFrom(`/${segments.join("/")}`, `/${segments.join("/")}/`));
    fc.assert(
      fc.property(posix, posix, (real, root) => {
        expect(isInside(real, root), `${real} in ${root}`).toBe(byRelative(real, root));
      }),
      { numRuns: 5000 },
    );
    expect(isInside("/docs/..hidden.md", "/docs")).toBe(true);
    expect(isInside("/docs-sibling/a", "/docs")).toBe(false);
    expect(isInside("/docs/a", "/")).toBe(true);
  });
});
