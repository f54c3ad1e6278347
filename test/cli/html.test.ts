/** `agentstream html`: one page per session, for every capture; where pages go; secrets redacted. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import type { ExportedSession } from "../../src/views/shared/exported-session.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, listCaptures, repoRoot, sharedPath } from "../helpers/shared.ts";
import { positives, streamWith } from "../stages/redact/_corpus.ts";
import { tempDir } from "../helpers/temp.ts";

/** The session a page embeds. */
function embeddedSession(page: string): ExportedSession {
  const json = /<script type="application\/json" id="agentstream-session">\n([\s\S]*?)\n<\/script>/.exec(page)?.[1];
  if (json === undefined) throw new Error("no embedded session in the page");
  return JSON.parse(json) as ExportedSession;
}

let dir = "";
beforeAll(() => {
  // The command inlines the bundled front end: build it when this checkout has not yet.
  if (!existsSync(join(repoRoot, "dist/web/app.js"))) execFileSync(process.execPath, [join(repoRoot, "scripts/build-web.mjs")]);
  dir = tempDir("html");
});

describe.skipIf(!hasShared)("agentstream html on every real capture", () => {
  it.each(listCaptures())("%s %s", async (_dialect, path) => {
    const out = mkdtempSync(join(dir, "capture-"));
    const io = fakeIo();
    const code = await run(["html", "-q", "-o", `${out}/`, path], io);
    const pages = readdirSync(out);
    if (code === 4) {
      expect(pages).toEqual([]); // nothing readable: no page, and the reason was said on stderr
      return;
    }
    expect(code, io.err()).toBe(0);
    expect(pages.length).toBeGreaterThan(0);
    for (const name of pages) {
      const page = readFileSync(join(out, name), "utf8");
      expect(page.startsWith("<!doctype html>")).toBe(true);
      const session = embeddedSession(page);
      expect(session.events.length).toBeGreaterThan(0);
      expect(session.header.input).toBe(path);
      // Each page is one session's: events of one root session (subagents' own ids aside) and seq in order.
      const seqs = session.events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });
});

describe.skipIf(!hasShared)("where the pages go", () => {
  const three = [
    "fixtures/claude/archistrator_success_with_tools.jsonl",
    "fixtures/codex/md2okf_command_failed_exit2_then_success.jsonl",
    "fixtures/gemini/agentcmd_replace_edit.jsonl",
  ];
  const concatenated = (): string => three.map((p) => readFileSync(sharedPath(p), "utf8")).join("");

  it("several sessions in one input: one file each in the directory, named from agent and session id", async () => {
    const out = join(dir, "sessions");
    const io = fakeIo({ stdin: concatenated() });
    expect(await run(["html", "-o", `${out}/`], io)).toBe(0);
    const names = readdirSync(out).sort();
    expect(names).toHaveLength(3);
    expect(names.map((n) => n.replace(/-[^-]+\.html$/, ""))).toEqual(["claude-code", "codex", "gemini-cli"]);
    for (const name of names) expect(io.err()).toContain(`wrote ${join(out, name)}`);
  });

  it("one session to stdout; several sessions without a directory is a usage error that says what to do", async () => {
    const one = fakeIo();
    expect(await run(["html", sharedPath(three[0] as string)], one)).toBe(0);
    expect(one.out().startsWith("<!doctype html>")).toBe(true);
    expect(embeddedSession(one.out()).events.some((e) => e.type === "session.started")).toBe(true);
    const many = fakeIo({ stdin: concatenated() });
    expect(await run(["html"], many)).toBe(2);
    expect(many.err()).toContain("the input holds 3 sessions");
    expect(many.out()).toBe("");
  });

  it("refuses, before reading, several inputs without a directory and HTML on a terminal", async () => {
    const files = three.map((p) => sharedPath(p));
    const io = fakeIo();
    expect(await run(["html", ...files], io)).toBe(2);
    expect(io.err()).toContain("name a directory with -o pages/");
    const file = fakeIo();
    expect(await run(["html", "-o", join(dir, "one.html"), ...files], file)).toBe(2);
    const tty = fakeIo({ stdoutTTY: true });
    expect(await run(["html", files[0] as string], tty)).toBe(2);
    expect(tty.err()).toContain("-o session.html");
  });

  it("-o file.html writes one file", async () => {
    const path = join(dir, "single.html");
    expect(await run(["html", "-q", "-o", path, sharedPath(three[1] as string)], fakeIo())).toBe(0);
    expect(embeddedSession(readFileSync(path, "utf8")).header.dialect).toBe("codex");
  });
});

describe("an input with nothing readable", () => {
  it.each([
    ["JSON no dialect claims", '{"a":1}\n'],
    ["empty", ""],
    ["plain text", "make: *** No rule to make target\n"],
  ])("%s: exit 4, the reason on stderr, and no page written (to a file, a directory or stdout)", async (_name, text) => {
    const here = tempDir("html-unreadable");
    const input = join(here, "one.json");
    writeFileSync(input, text);
    const page = join(here, "unreadable.html");
    const io = fakeIo();
    expect(await run(["html", input, "-o", page], io)).toBe(4);
    expect(existsSync(page)).toBe(false);
    expect(io.err()).not.toContain("wrote");
    const pages = join(here, "pages");
    expect(await run(["html", input, "-o", `${pages}/`], fakeIo())).toBe(4);
    expect(existsSync(pages) ? readdirSync(pages) : []).toEqual([]);
    const stdout = fakeIo();
    expect(await run(["html", input], stdout)).toBe(4);
    expect(stdout.out()).toBe("");
  });
});

describe.skipIf(!hasShared)("secrets", () => {
  it("are redacted in the page by default and shown with --no-redact", async () => {
    for (const p of positives.slice(0, 5)) {
      const redacted = fakeIo({ stdin: streamWith(p) });
      expect(await run(["html", "-q"], redacted)).toBe(0);
      expect(redacted.out(), p.rule).not.toContain(p.token);
      const shown = fakeIo({ stdin: streamWith(p) });
      expect(await run(["html", "-q", "--no-redact"], shown)).toBe(0);
      expect(
        shown.out().replace(/\\u003c|\\u003e|\\u0026/g, (m) => String.fromCharCode(Number.parseInt(m.slice(2), 16))),
        p.rule,
      ).toContain(p.token);
    }
  });
});

describe("agentstream html on a stream of many tiny records", () => {
  it("embeds events up to the page's caps (each event's envelope counted) and says how many later ones it left out", async () => {
    const n = 200_000;
    const input = join(dir, "tiny.ndjson");
    writeFileSync(input, Array.from({ length: n }, (_, i) => `{"n":${100000 + i}}\n`).join(""));
    const out = join(dir, "tiny.html");
    const io = fakeIo();
    expect(await run(["html", "-q", "--from", "json", "-o", out, input], io), io.err()).toBe(0);
    const { events, truncation } = embeddedSession(readFileSync(out, "utf8"));
    // 16 Mi characters at 128 an event at least: about 131,000 of the 200,000 records.
    expect(events.length).toBeLessThan(140_000);
    expect(truncation.omittedEvents).toBe(n - events.length);
    expect(truncation.eventsChars).toBe(2 * truncation.totalChars);
  }, 60_000);
});
