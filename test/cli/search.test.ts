/** `agentstream search` as a user runs it: in-process (fake terminal) and through the built binary. */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import type { SearchHit } from "../../src/search/index.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";
import { prompt, sessionTree, toolResult, toolUse, twoSessions } from "../search/sessions.ts";

interface Printed {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** One cache for the real captures' searches: they are indexed once. */
const sharedCache = tempDir("search-cache", { until: "file" });

async function search(args: string[], options: { stdoutTTY?: boolean; env?: Record<string, string> } = {}): Promise<Printed> {
  const cache = args.some((arg) => arg.startsWith(sharedPath("fixtures"))) ? sharedCache : tempDir("search-cache");
  const io = fakeIo({ stdoutTTY: options.stdoutTTY ?? false, env: { XDG_CACHE_HOME: cache, TZ: "UTC", ...options.env } });
  const code = await run(["search", "--tz", "UTC", ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function hits(args: string[]): Promise<SearchHit[]> {
  const printed = await search([...args, "--json"]);
  expect(printed.code, printed.err).toBe(0);
  return (JSON.parse(printed.out) as { hits: SearchHit[] }).hits;
}

/** Fake secrets in their context: the corpus's (one per rule) when ../shared is here, else one GitHub token. */
function secretCases(): { token: string; text: string }[] {
  if (!hasShared) {
    const token = ["ghp", "_F3TdkryHPY18bipwDNWE6TgnuBLUA4EelszI"].join("");
    return [{ token, text: `export GITHUB_TOKEN=${token}` }];
  }
  const corpus = JSON.parse(readFileSync(sharedPath("corpus/secrets/fake-tokens.json"), "utf8")) as {
    positives: { rule: string; parts: string[]; context: string }[];
  };
  const rules = new Set<string>();
  return corpus.positives
    .filter((p) => !rules.has(p.rule) && rules.add(p.rule) !== undefined)
    .map((p) => ({ token: p.parts.join(""), text: p.context.replace("{TOKEN}", p.parts.join("")) }));
}

const captures = ["claude-session", "codex-session", "gemini-session"].map((folder) => sharedPath("fixtures", folder));

describe("search over a session store that is not one file (OpenCode's opencode.db, our own capture)", () => {
  /** The capture copied where OpenCode keeps it under a fresh XDG_DATA_HOME: found by the default discovery. */
  function openCodeHome(): Record<string, string> {
    const data = tempDir("search-opencode-data");
    mkdirSync(join(data, "opencode"), { recursive: true });
    copyFileSync(join(repoRoot, "test/fixtures/opencode-session/opencode.db"), join(data, "opencode/opencode.db"));
    return { XDG_DATA_HOME: data, HOME: tempDir("search-opencode-home") };
  }

  it("finds a prompt, an answer and a tool command in its sessions, each hit a reference render --at opens", async () => {
    const env = openCodeHome();
    const printed = await search(["scripted-output", "--json"], { env });
    expect(printed.code, printed.err).toBe(0);
    const found = (JSON.parse(printed.out) as { hits: SearchHit[] }).hits;
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((hit) => hit.agent === "opencode" && /opencode\.db#ses_/.test(hit.path))).toBe(true);
    expect(new Set(found.map((hit) => hit.field))).toEqual(new Set(["input", "answer"]));
    const [hit] = found;
    const io = fakeIo({ env: { ...env, NO_COLOR: "1" } });
    expect(await run(["render", hit?.path ?? "", "--at", String(hit?.event)], io), io.err()).toBe(0);
    expect(io.out()).toContain("scripted-output");
  });
});

describe.skipIf(!hasShared)("search over the real session captures", () => {
  it("finds each agent's sessions, newest first, with where to open them", async () => {
    const todo = await hits(['"todo app"', ...captures, "--limit", "5"]);
    expect(todo.length).toBe(5);
    expect(todo.every((hit) => hit.agent === "claude" && hit.path.endsWith("ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"))).toBe(
      true,
    );
    const times = todo.map((hit) => hit.time ?? "");
    expect(times).toEqual([...times].sort().reverse());
    const marker = await hits(["marker.txt", ...captures, "--agent", "gemini"]);
    expect(marker.map((hit) => [hit.agent, hit.field, hit.line])).toContainEqual(["gemini", "prompt", 2]);
    const codex = await hits(["", ...captures, "--agent", "codex"]);
    expect(codex.map((hit) => hit.agent)).toEqual(["codex"]);
    // The line a hit names holds the record it came from.
    for (const hit of [...todo, ...marker]) {
      const line = readFileSync(hit.path, "utf8").split("\n")[(hit.line ?? 0) - 1] ?? "";
      const [start, end] = hit.ranges[0] ?? [0, 0];
      expect(line.toLowerCase()).toContain(hit.snippet.slice(start, end).toLowerCase());
    }
  });

  it("prints the agent, project, time, path:line #event and the matching lines", async () => {
    const printed = await search(["todo app", sharedPath("fixtures/claude-session"), "--limit", "1"]);
    expect(printed.code).toBe(0);
    expect(printed.out).toMatch(
      /^2025-09-03 01:02 · claude · \/path\/to\/Demo · answer\n {2}\S+ccviewer_1\.0\.98_orchestrator_todo_app_fe5e1c67\.jsonl:438 #768\n {4}.*TODO app/,
    );
    expect(printed.err).toBe("agentstream search: more hits past 1: --limit shows more\n");
  });

  it("--tool Edit --file: the tool calls that touched the file", async () => {
    const edits = await hits(["", sharedPath("fixtures/claude-session"), "--tool", "Edit", "--file", "src/app/page.tsx"]);
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.every((hit) => hit.tool === "Edit" && hit.snippet.includes("src/app/page.tsx"))).toBe(true);
  });
});

describe("search", () => {
  it("highlights matches only on a terminal that takes colour", async () => {
    const root = twoSessions().root;
    expect((await search(["formatDue", root], { stdoutTTY: true })).out).toContain("\x1b[1;33mformatDue\x1b[0m");
    expect((await search(["formatDue", root], { stdoutTTY: true, env: { NO_COLOR: "1" } })).out).not.toContain("\x1b");
    expect((await search(["formatDue", root])).out).not.toContain("\x1b");
  });

  it("shows escape sequences in agent text as visible symbols, never runs them", async () => {
    const tree = sessionTree();
    const b = { session: "esc-1", time: "2026-11-01T00:00:00.000Z" };
    tree.write("p/esc-1.jsonl", [prompt(b, "evil \x1b]0;pwned\x07 title and \x1b[2J clear")]);
    const printed = await search(["evil", tree.root], { stdoutTTY: true });
    expect(printed.out).toContain("evil");
    expect(printed.out.replace(/\x1b\[(?:1;33|0|1|2)m/g, "")).not.toContain("\x1b");
  });

  it("answers a caller's mistake with exit 2 and what to do", async () => {
    const root = twoSessions().root;
    for (const [args, message] of [
      [["x", root, "--since", "14x"], /--since takes a time ago \(14d, 2w, 12h, 30m\)/],
      [["x", root, "--until", "2026-02-30"], /2026-02-30 is not a day of the calendar/],
      [["(unclosed", root, "--regex"], /--regex: not a valid regular expression/],
      [["x", root, "--agent", "nobody"], /--agent takes claude, codex, gemini/],
      [["x", root, "--limit", "0"], /--limit takes a whole number from 1 to 1000/],
      [["x", root, "--status", "done"], /--status takes/],
    ] as const) {
      const printed = await search([...args]);
      expect(printed.code, printed.err).toBe(2);
      expect(printed.err).toMatch(message);
    }
  });

  it("--since takes a time ago and a day; a missing path is said with exit 3", async () => {
    const root = twoSessions().root;
    expect((await hits(["the", root, "--since", "2026-11-24"])).every((hit) => hit.sessionId === "bbbb-2222")).toBe(true);
    expect(await hits(["the", root, "--since", "1d"])).toEqual([]);
    const printed = await search(["the", root, join(root, "nope")]);
    expect(printed.code).toBe(3);
    expect(printed.err).toContain("nope: no such file or folder");
  });

  it("never matches nor prints a secret in a prompt, a tool input or a tool output (the fake secrets of ../shared/corpus)", async () => {
    const cases = secretCases();
    const tree = sessionTree();
    cases.forEach(({ text }, i) => {
      const b = { session: `sec-${i}`, time: `2026-11-02T00:00:0${i % 10}.000Z` };
      tree.write(`p/sec-${i}.jsonl`, [
        prompt(b, `deploy with ${text} please`),
        toolUse({ ...b, time: "2026-11-02T00:01:00.000Z" }, `t${i}`, "Bash", { command: `echo ${text}` }),
        toolResult({ ...b, time: "2026-11-02T00:02:00.000Z" }, `t${i}`, `${text}\ndone deploying`),
      ]);
    });
    const cache = tempDir("search-cache");
    const env = { XDG_CACHE_HOME: cache };
    for (const { token } of cases) {
      const middle = token.slice(Math.floor(token.length / 3), Math.floor(token.length / 3) + 12);
      for (const query of [token, middle]) {
        const printed = await search(["--outputs", "--reasoning", "--json", "--", query, tree.root], { env });
        expect(printed.code, printed.err).toBe(0);
        expect(JSON.parse(printed.out).hits, `${query} found`).toEqual([]);
      }
    }
    const found = await search(["deploy", tree.root, "--outputs", "--limit", "1000"], { env });
    expect(found.out).toContain("[REDACTED");
    for (const { token } of cases)
      expect(found.out).not.toContain(token.slice(Math.floor(token.length / 3), Math.floor(token.length / 3) + 12));
    const stored = readFileSync(join(cache, "agentstream/search-v4.sqlite"));
    for (const { token } of cases) expect(stored.includes(token), token).toBe(false);
  });

  it("a path where the query goes finds nothing and says how to search it with no query", async () => {
    const folder = sharedPath("fixtures", "claude-session");
    const printed = await search(["--tool", "Write", folder]);
    expect(printed.code).toBe(0);
    expect(printed.err).toContain(`to look in it with no query: agentstream search "" ${folder}`);
    const meant = await hits(["", "--tool", "Write", folder]);
    expect(meant.length).toBeGreaterThan(0);
  });

  it("--no-index leaves the cache folder alone", async () => {
    const cache = tempDir("search-cache");
    const printed = await search(["formatDue", twoSessions().root, "--no-index"], { env: { XDG_CACHE_HOME: cache } });
    expect(printed.out).toContain("formatDue");
    expect(existsSync(join(cache, "agentstream"))).toBe(false);
  });
});

describe.skipIf(!hasShared)("opening a hit where the user is: render --at, html --at", () => {
  const capture = sharedPath("fixtures/claude-session/ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl");

  it("render --at starts at the hit's event, after the session's header", async () => {
    const [hit] = await hits(['"npm run build"', capture, "--tool", "Bash"]);
    expect(hit).toMatchObject({ field: "input", tool: "Bash" });
    const io = fakeIo();
    expect(await run(["render", capture, "--at", `#${hit?.event}`, "--mode", "none"], io)).toBe(0);
    const lines = io.out().split("\n");
    expect(lines[0]).toBe("◆ claude-code 1.0.98 · claude-sonnet-4-20250514 · /path/to/Demo");
    const cut = lines.findIndex((line) => line.startsWith("⋯ "));
    expect(lines[cut]).toBe(`⋯ events 0–${(hit?.event ?? 0) - 1} not shown (--at ${hit?.event})`);
    expect(lines[cut + 1]).toMatch(/^ {2}→ Bash {2}npm run build$/);
  });

  it("every hit's event is the event render --at shows first (the numbering is the same)", async () => {
    for (const hit of await hits(["todo", capture, "--limit", "4", "--tool", "TodoWrite"])) {
      const io = fakeIo();
      expect(await run(["render", capture, "--at", String(hit.event), "--mode", "none", "--full"], io)).toBe(0);
      const after = io
        .out()
        .split("\n")
        .slice(
          io
            .out()
            .split("\n")
            .findIndex((line) => line.startsWith("⋯ ")) + 1,
        );
      expect(after[0]).toMatch(/TodoWrite|todo/i);
    }
  });

  it("--at takes an event number and one file: a mistake is exit 2", async () => {
    for (const args of [
      ["render", capture, "--at", "x1"],
      ["render", capture, capture, "--at", "3"],
      ["html", capture, capture, "--at", "3", "-o", "x/"],
      ["html", capture, "--at=-1"],
    ]) {
      const io = fakeIo();
      expect(await run(args, io), io.err()).toBe(2);
      expect(io.err()).toMatch(/--at takes/);
    }
  });

  it("html --at writes the event the page opens at into the page", async () => {
    const io = fakeIo();
    const out = join(tempDir("search-html"), "page.html");
    expect(await run(["html", "-q", capture, "--at", "716", "-o", out], io)).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/"header":\{[^}]*"at":716/);
  });
});

const bin = join(repoRoot, "dist/cli/bin.js");
describe.skipIf(!existsSync(bin))("search (built binary)", () => {
  it("searches the agents' standard folders, builds the index once and then reads only what changed", () => {
    const home = tempDir("search-home");
    const tree = twoSessions();
    const env = { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC", CLAUDE_CONFIG_DIR: join(tree.root) };
    const once = spawnSync(process.execPath, [bin, "search", "formatDue"], { encoding: "utf8", env });
    expect(once.status, once.stderr).toBe(0);
    expect(once.stdout).toMatch(
      /2026-11-20 10:00 · claude · \/work\/shop · answer\n {2}\S+aaaa-1111\.jsonl:5 #\d+\n {4}Fixed: formatDue now/,
    );
    expect(existsSync(join(home, ".cache/agentstream/search-v4.sqlite"))).toBe(true);
    const json = spawnSync(process.execPath, [bin, "search", "formatDue", "--json"], { encoding: "utf8", env });
    expect(JSON.parse(json.stdout).index).toMatchObject({ added: 0, changed: 0, unchanged: 2, removed: 0 });
  });
});
