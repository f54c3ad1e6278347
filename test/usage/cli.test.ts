/** `agentstream sessions` and `agentstream usage` through the CLI, in-process. */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { stripSgr } from "../../src/views/shared/sanitize.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { claudeLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

/** A home folder with one session of each agent in its standard place. */
function home(): string {
  const tree = tempTree();
  tree.write(".claude/projects/-work-demo/s-1.jsonl", [
    claudeLine({ message: "m1", request: "r1", time: "2026-03-01T23:30:00Z", output: 100 }),
    claudeLine({ message: "m2", request: "r2", time: "2026-03-02T00:30:00Z", output: 200 }),
  ]);
  tree.write(".claude/projects/-work-demo/s-1/subagents/agent-a1.jsonl", [
    claudeLine({
      message: "m3",
      request: "r3",
      time: "2026-03-02T00:10:00Z",
      output: 300,
      sidechain: true,
      model: "claude-haiku-4-5-20251001",
    }),
  ]);
  tree.write(".codex/sessions/2026/03/02/rollout-2026-03-02T08-00-00-t.jsonl", [
    ...codexMeta("t", "2026-03-02T08:00:00Z"),
    codexTokenCount("2026-03-02T08:00:05Z", [1000, 800, 20], [1000, 800, 20]),
  ]);
  tree.write(".gemini/tmp/demo/chats/session-2026-03-03T10-00-g1.jsonl", [
    { sessionId: "g1", projectHash: "abc", startTime: "2026-03-03T10:00:00Z", lastUpdated: "2026-03-03T10:00:00Z", kind: "main" },
    {
      id: "x1",
      timestamp: "2026-03-03T10:00:02Z",
      type: "gemini",
      content: "hi",
      tokens: { input: 500, output: 5, cached: 100, thoughts: 7, tool: 0, total: 512 },
      model: "gemini-2.5-flash",
    },
  ]);
  tree.write("not-a-log/notes.jsonl", [{ hello: "world" }]);
  return tree.root;
}

async function cli(args: string[], env: Record<string, string>, tty = false) {
  const io = fakeIo({ env, stdoutTTY: tty });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("agentstream usage", () => {
  it("reads the agents' standard locations, each request's own day in the time zone asked", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    const utc = JSON.parse((await cli(["usage", "--json", "--tz", "UTC"], env)).out);
    expect(utc.groups.map((g: { day: string; requests: number }) => [g.day, g.requests])).toEqual([
      ["2026-03-01", 1],
      ["2026-03-02", 3],
      ["2026-03-03", 1],
    ]);
    expect(utc.totals.tokens).toMatchObject({ output: 100 + 200 + 300 + 20 + 12, reasoning: 7 });
    // 23:30 UTC on March 1st is March 2nd in Tokyo: usage goes by each request's time, not the session's start.
    const tokyo = JSON.parse((await cli(["usage", "--json", "--tz", "Asia/Tokyo"], env)).out);
    expect(tokyo.groups.map((g: { day: string }) => g.day)).toEqual(["2026-03-02", "2026-03-03"]);
  });

  it("groups by several dimensions, with each group's models, and marks estimated costs", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    const json = JSON.parse((await cli(["usage", "--json", "--by", "agent", "--by", "month", "--breakdown"], env)).out);
    const claude = json.groups.find((g: { agent: string }) => g.agent === "claude");
    expect(claude.month).toBe("2026-03");
    expect(claude.breakdown.map((b: { model: string }) => b.model).sort()).toEqual([
      "claude-haiku-4-5-20251001",
      "claude-sonnet-4-20250514",
    ]);
    expect(claude.costEstimated).toBe(true);
    expect(claude.unpricedModels).toEqual([]);
    expect(json.groups.map((g: { agent: string }) => g.agent)).toEqual(["claude", "codex", "gemini"]);
  });

  it("filters by agent, project and days", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    const only = async (...args: string[]) => JSON.parse((await cli(["usage", "--json", "--tz", "UTC", ...args], env)).out).totals.requests;
    expect(await only("--agent", "codex,gemini")).toBe(2);
    expect(await only("--project", "codex-demo")).toBe(1);
    expect(await only("--since", "20260302", "--until", "2026-03-02")).toBe(3);
  });

  it("prints a table that fits the terminal, with a totals row and the note on estimated costs", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    for (const columns of [200, 80, 60, 40]) {
      const io = fakeIo({ env, stdoutTTY: true });
      Object.defineProperty(io.stdout, "columns", { value: columns });
      expect(await run(["usage", "--by", "project", "--tz", "UTC"], io)).toBe(0);
      const lines = stripSgr(io.out()).split("\n");
      const table = lines.slice(0, lines.indexOf(""));
      expect(table[0]).toMatch(/^project/);
      expect(table.at(-1)).toMatch(/^total/);
      for (const line of table) expect(line.length, `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      expect(io.out()).toContain("~ estimated from the price table of");
    }
  });

  it("says which arguments are wrong, before reading anything", async () => {
    const env = { HOME: "/nonexistent" };
    expect(await cli(["usage", "--by", "year"], env)).toMatchObject({ code: 2, err: expect.stringMatching(/--by takes day, week, month/) });
    expect(await cli(["usage", "--tz", "Mars/Olympus"], env)).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--tz takes an IANA time zone/),
    });
    expect(await cli(["usage", "--since", "last week"], env)).toMatchObject({ code: 2, err: expect.stringMatching(/--since takes a day/) });
    expect(await cli(["usage", "--agent", "aider"], env)).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--agent takes claude, codex, gemini/),
    });
  });

  it("rejects a day no calendar has, in both commands, as a usage error", async () => {
    const env = { HOME: "/nonexistent" };
    for (const [command, option, day] of [
      ["usage", "--since", "2026-13-01"],
      ["usage", "--until", "2026-02-30"],
      ["sessions", "--since", "20260431"],
      ["sessions", "--until", "2026-00-10"],
      ["usage", "--since", "2025-02-29"],
    ] as const) {
      expect(await cli([command, option, day], env)).toMatchObject({
        code: 2,
        err: expect.stringMatching(new RegExp(`${option}: \\d{4}-\\d{2}-\\d{2} is not a day of the calendar`)),
      });
    }
    // February 29th of a leap year is a day.
    expect((await cli(["usage", "--since", "2028-02-29", "--json"], env)).code).toBe(0);
  });

  it("reports files that are not session logs and paths that do not exist, goes on, and ends with an I/O error", async () => {
    const root = home();
    const result = await cli(["usage", join(root, "not-a-log"), join(root, "missing"), join(root, ".codex"), "--json", "--no-cache"], {
      HOME: root,
    });
    expect(result.code).toBe(3);
    expect(result.err).toMatch(/missing: no such file or folder/);
    expect(result.err).toMatch(/1 file\(s\) skipped, not a session log of an agent agentstream reads/);
    expect(JSON.parse(result.out).totals.requests).toBe(1);
  });
});

describe("input that cannot be read", () => {
  it("a link to nothing, named or in a project folder, and a FIFO are said with why, never taken for non-session files", async () => {
    const root = home();
    const env = { HOME: root };
    symlinkSync(join(root, "gone.jsonl"), join(root, ".claude/projects/-work-demo/moved.jsonl"));
    const fifo = join(root, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    for (const command of ["usage", "sessions"]) {
      const named = await cli([command, "--no-cache", "--json", join(root, ".claude/projects/-work-demo/moved.jsonl"), fifo], env);
      expect(named.code).toBe(3);
      expect(named.err).toMatch(/moved\.jsonl: cannot read it: a symbolic link to nothing/);
      expect(named.err).toMatch(/pipe\.jsonl: cannot read it: not a file or folder/);
      expect(named.err).not.toMatch(/not a session log of an agent agentstream reads/);
      // The default locations: the rest is counted, the link said, the status an I/O error.
      const found = await cli([command, "--no-cache", "--json"], env);
      expect(found.code).toBe(3);
      expect(found.err).toMatch(/moved\.jsonl: cannot read it: a symbolic link to nothing/);
    }
    const totals = JSON.parse((await cli(["usage", "--no-cache", "--json"], env)).out).totals;
    expect(totals.requests).toBe(5);
  });

  // As root (the test machines), chmod does not stop reading: the binary runs as `nobody` there.
  const asNobody = process.getuid?.() === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
  const canDrop = asNobody.length === 0 || existsSync("/usr/bin/setpriv");
  it.skipIf(!existsSync(join(repoRoot, "dist/usage/scan-worker.js")) || !canDrop)(
    "a file and a project folder without read permission: said (permission denied), exit 3, the rest counted (built binary, workers)",
    () => {
      const root = home();
      for (let f = 0; f < 8; f++) {
        const session = `w${f}`;
        writeFileSync(
          join(root, `.claude/projects/-work-demo/${session}.jsonl`),
          `${JSON.stringify(claudeLine({ message: `m${session}`, request: `r${session}`, session }))}\n`,
        );
      }
      const secret = join(root, ".claude/projects/-work-demo/w3.jsonl");
      mkdirSync(join(root, ".claude/projects/-work-closed"));
      writeFileSync(join(root, ".claude/projects/-work-closed/c.jsonl"), `${JSON.stringify(claudeLine({ message: "c", session: "c" }))}\n`);
      // `nobody` must reach the tree: the test folders are made private.
      for (let dir = root; dir !== dirname(dir) && dir.startsWith(tmpdir()); dir = dirname(dir)) chmodSync(dir, 0o755);
      execFileSync("chmod", ["-R", "a+rX", root]);
      chmodSync(secret, 0o000);
      chmodSync(join(root, ".claude/projects/-work-closed"), 0o000);
      const bin = join(repoRoot, "dist/cli/bin.js");
      const [command, ...prefix] = [...asNobody, process.execPath];
      for (const args of [
        ["usage", "--json"],
        ["sessions", "--json"],
        ["usage", join(root, ".claude/projects"), "--json"],
      ]) {
        const result = spawnSync(command as string, [...prefix, bin, ...args, "--no-cache", "--threads", "2"], {
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "", HOME: root, TZ: "UTC" },
        });
        expect(result.status, result.stderr).toBe(3);
        expect(result.stderr).toContain(`${secret}: cannot read it: permission denied`);
        expect(result.stderr).toMatch(/-work-closed: cannot read it: permission denied/);
        expect(result.stderr).not.toMatch(/not a session log of an agent agentstream reads/);
        const json = JSON.parse(result.stdout);
        if (args[0] === "sessions") expect(json.map((s: { sessionId: string }) => s.sessionId)).not.toContain("w3");
        else expect(json.totals.requests).toBe(args.length === 2 ? 5 + 7 : 3 + 7);
      }
    },
  );
});

describe("narrow tables", () => {
  it("keep what tells rows apart: models never cut to the same text, sessions keep agent and status, paths cut first", async () => {
    const tree = tempTree();
    const models = ["claude-sonnet-4-20250514", "claude-sonnet-4-5-20250929", "claude-opus-4-20250514", "claude-opus-4-1-20250805"];
    for (const [i, model] of models.entries()) {
      tree.write(`projects/-home-someone-work-clients-acme-service-${i}/s${i}.jsonl`, [
        claudeLine({ message: `m${i}`, request: `r${i}`, session: `s${i}`, model, cwd: `/home/someone/work/clients/acme/service-${i}` }),
      ]);
    }
    const table = async (columns: number, ...args: string[]): Promise<string[]> => {
      const io = fakeIo({ env: { HOME: tree.root }, stdoutTTY: true });
      Object.defineProperty(io.stdout, "columns", { value: columns });
      expect(await run([...args, tree.root, "--no-cache", "--tz", "UTC"], io)).toBe(0);
      const lines = stripSgr(io.out()).split("\n");
      const rows = lines.slice(0, lines.indexOf(""));
      for (const line of rows) expect(line.length, `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      return rows;
    };
    for (const columns of [80, 60, 40]) {
      const rows = await table(columns, "usage", "--by", "model");
      const cells = rows.slice(1, -1).map((line) => line.split("  ")[0]?.trim());
      expect(new Set(cells).size, `${columns}: ${cells.join(" | ")}`).toBe(models.length);
    }
    const sessions = await table(60, "sessions");
    expect(sessions[0]).toMatch(/^start\s+agent\s+project\s+.*status/);
    // The projects, cut from the left, still differ.
    const projects = sessions.slice(1).map((line) => /…[^ ]*-\d/.exec(line)?.[0]);
    expect(new Set(projects).size).toBe(models.length);
  });
});

describe("malformed session lines", () => {
  /** A usage record whose figures cannot be trusted: the issue's example. */
  const broken = { input_tokens: "NaN", output_tokens: -5 };

  it("are counted and said, per session and in all, and a record with NaN counts or no date is not a request", async () => {
    const tree = tempTree();
    const claude = claudeLine({ message: "m1", request: "r1", session: "c1", time: "2026-03-01T10:00:00Z" }) as Record<string, unknown>;
    const bad = claudeLine({ message: "m2", request: "r2", session: "c1" }) as { message: { usage: object } } & Record<string, unknown>;
    const claudeFile = tree.write("projects/-work-demo/c1.jsonl", [
      claude,
      { ...bad, timestamp: "not-a-date", message: { ...bad.message, usage: broken } },
    ]);
    // A line cut short mid-write, and one that is not JSON at all, neither carrying usage.
    appendFileSync(claudeFile, '{"type":"user","message":{"role":"user","content":"hal\nnot json at all\n');
    const codex = tree.write("sessions/rollout-2026-03-02T08-00-00-t.jsonl", [
      ...codexMeta("t", "2026-03-02T08:00:00Z"),
      codexTokenCount("2026-03-02T08:00:05Z", [1000, 800, 20], [1000, 800, 20]),
      {
        timestamp: "not-a-date",
        type: "event_msg",
        payload: { type: "token_count", info: { total_token_usage: { ...broken, total_tokens: 9 } } },
      },
    ]);
    appendFileSync(codex, '{"timestamp":"2026-03-02T08:00:09Z","type":"response_item","payload":{"ty\n');
    tree.write("gemini/tmp/demo/chats/session-2026-03-03T10-00-g1.jsonl", [
      { sessionId: "g1", projectHash: "abc", startTime: "2026-03-03T10:00:00Z", kind: "main" },
      { id: "x1", timestamp: "2026-03-03T10:00:02Z", type: "gemini", tokens: { input: 5, output: 5 }, model: "gemini-2.5-flash" },
      { id: "x2", timestamp: "not-a-date", type: "gemini", tokens: { input: "NaN", output: -5 }, model: "gemini-2.5-flash" },
    ]);
    const env = { HOME: tree.root };
    const usage = await cli(["usage", tree.root, "--json", "--no-cache", "--tz", "UTC"], env);
    expect(usage.code).toBe(0);
    expect(usage.err).toMatch(/agentstream: 6 malformed line\(s\) skipped .* in 3 session\(s\)/);
    const json = JSON.parse(usage.out);
    expect(json.malformedLines).toBe(6);
    expect(json.totals.requests).toBe(3);
    expect(json.groups.map((g: { day: string }) => g.day)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03"]);
    const rows = JSON.parse((await cli(["sessions", tree.root, "--json", "--no-cache"], env)).out);
    expect(
      rows.map((r: { sessionId: string; malformedLines: number; requests: number }) => [r.sessionId, r.malformedLines, r.requests]),
    ).toEqual([
      ["c1", 3, 1],
      ["t", 2, 1],
      ["g1", 1, 1],
    ]);
    // The table says it too.
    const table = await cli(["usage", tree.root, "--no-cache", "--tz", "UTC"], env);
    expect(table.out).not.toContain("(no time)");
    expect(table.err).toContain("6 malformed line(s)");
  });
});

describe("a model the price table does not know", () => {
  it("has a null cost in JSON, never 0, with the priced part beside it", async () => {
    const tree = tempTree();
    tree.write("projects/-work-demo/s-9.jsonl", [
      claudeLine({ message: "m1", request: "r1", session: "s-9", model: "claude-sonnet-5", output: 100 }),
      claudeLine({ message: "m2", request: "r2", session: "s-9", output: 100 }),
    ]);
    const env = { HOME: tree.root };
    const usage = JSON.parse((await cli(["usage", tree.root, "--json", "--no-cache", "--by", "model"], env)).out);
    const unpriced = usage.groups.find((g: { model: string }) => g.model === "claude-sonnet-5");
    expect(unpriced).toMatchObject({ costUsd: null, pricedCostUsd: 0, unpricedModels: ["claude-sonnet-5"] });
    const priced = usage.groups.find((g: { model: string }) => g.model !== "claude-sonnet-5");
    expect(priced.costUsd).toBeGreaterThan(0);
    expect(usage.totals).toMatchObject({ costUsd: null, pricedCostUsd: priced.costUsd, unpricedModels: ["claude-sonnet-5"] });
    const [session] = JSON.parse((await cli(["sessions", tree.root, "--json", "--no-cache"], env)).out);
    expect(session).toMatchObject({ costUsd: null, pricedCostUsd: priced.costUsd, unpricedModels: ["claude-sonnet-5"] });
  });
});

describe("agentstream sessions", () => {
  it("one row per session, a subagent file inside its session", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    const { out, code } = await cli(["sessions", "--ndjson"], env);
    expect(code).toBe(0);
    const rows = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.agent, r.sessionId, r.project, r.requests])).toEqual([
      ["claude", "s-1", "/work/demo", 3],
      ["codex", "t", "/work/codex-demo", 1],
      ["gemini", "g1", "demo", 1],
    ]);
    expect(rows[0].files).toHaveLength(2);
    expect(rows[0].durationMs).toBe(60 * 60 * 1000);
    expect(rows[0].models).toEqual(["claude-haiku-4-5-20251001", "claude-sonnet-4-20250514"]);
  });

  it("sorts by cost, largest first, and fits the table to the terminal", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    const sorted = JSON.parse((await cli(["sessions", "--json", "--sort", "cost"], env)).out);
    const costs = sorted.map((r: { costUsd: number }) => r.costUsd);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    const io = fakeIo({ env, stdoutTTY: true });
    Object.defineProperty(io.stdout, "columns", { value: 72 });
    await run(["sessions"], io);
    for (const line of io.out().trimEnd().split("\n")) expect(line.length).toBeLessThanOrEqual(72);
  });

  it.skipIf(!hasShared)("lists the real captures with their project and models", async () => {
    const tree = tempTree();
    const dir = join(tree.root, "projects", "demo");
    mkdirSync(dir, { recursive: true });
    copyFileSync(
      sharedPath("fixtures", "claude-session", "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"),
      join(dir, "fe5e1c67.jsonl"),
    );
    const rows = JSON.parse((await cli(["sessions", tree.root, "--json", "--no-cache"], {})).out);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      agent: "claude",
      sessionId: "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
      project: "/path/to/Demo",
      models: ["claude-sonnet-4-20250514"],
      costEstimated: true,
    });
    expect(rows[0].start).toBe("2025-09-03T00:52:31.217Z");
  });
});

describe("the scan cache across runs", () => {
  it("gives a cold run's report over unchanged files, in another zone, with other prices and after an append", async () => {
    const root = home();
    const env = { HOME: root, XDG_CACHE_HOME: join(root, "cache") };
    const args = ["usage", "--json", "--tz", "UTC", "--by", "day,model", "--breakdown"];
    // Files of older layouts go when the new ones are written; anything else stays.
    mkdirSync(join(root, "cache", "agentstream"), { recursive: true });
    for (const stale of ["usage-result-v5.bin", "usage-result-v7.bin", "usage-v6.json", "usage-v8.bin", "notes.txt"])
      writeFileSync(join(root, "cache", "agentstream", stale), "x");
    const first = (await cli(args, env)).out;
    expect(readdirSync(join(root, "cache", "agentstream")).sort()).toEqual(["notes.txt", "usage-v9.bin"]);
    expect((await cli(args, env)).out).toBe(first);
    expect((await cli([...args, "--no-cache"], env)).out).toBe(first);
    // Another time zone: the days are that zone's.
    const tokyoArgs = args.map((arg) => (arg === "UTC" ? "Asia/Tokyo" : arg));
    const tokyo = (await cli(tokyoArgs, env)).out;
    expect(tokyo).toBe((await cli([...tokyoArgs, "--no-cache"], env)).out);
    expect(tokyo).not.toBe(first);
    expect(JSON.parse(tokyo).groups.some((g: { day: string }) => g.day === "2026-03-01")).toBe(false);
    expect((await cli(tokyoArgs, env)).out).toBe(tokyo);
    expect((await cli(args, env)).out).toBe(first);
    // Other prices: the costs are computed again.
    const prices = join(root, "prices.json");
    writeFileSync(prices, JSON.stringify({ models: { "claude-sonnet-4": { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } } }));
    const repriced = JSON.parse((await cli([...args, "--prices", prices], env)).out);
    expect(
      repriced.groups.filter((g: { model: string }) => g.model.startsWith("claude-sonnet-4")).map((g: { costUsd: number }) => g.costUsd),
    ).toEqual([0, 0]);
    // A file appended to: its new request is counted.
    const file = join(root, ".claude/projects/-work-demo/s-1.jsonl");
    appendFileSync(file, `${JSON.stringify(claudeLine({ message: "m9", request: "r9", time: "2026-03-05T10:00:00Z", output: 1 }))}\n`);
    const after = JSON.parse((await cli(args, env)).out);
    expect(after.groups.map((g: { day: string }) => g.day)).toContain("2026-03-05");
    expect(after.totals.requests).toBe(JSON.parse(first).totals.requests + 1);
  });
});

describe("the worker pool (built binary: workers run the compiled scanner)", () => {
  const bin = join(repoRoot, "dist/cli/bin.js");
  it.skipIf(!existsSync(join(repoRoot, "dist/usage/scan-worker.js")))("gives the same result on several threads as on one", () => {
    const tree = tempTree();
    for (let f = 0; f < 40; f++) {
      tree.write(
        `projects/p${f % 3}/s${f}.jsonl`,
        Array.from({ length: 30 }, (_, i) =>
          claudeLine({
            session: `s${f}`,
            message: `m${f}-${i % 20}`,
            request: `r${f}-${i % 20}`,
            output: i,
            time: `2026-03-${String(1 + (f % 9)).padStart(2, "0")}T10:00:00Z`,
          }),
        ),
      );
    }
    const usage = (threads: string) =>
      execFileSync(
        process.execPath,
        [bin, "usage", tree.root, "--json", "--no-cache", "--tz", "UTC", "--by", "day,session", "--threads", threads],
        { encoding: "utf8" },
      );
    const one = JSON.parse(usage("1"));
    expect(one.totals.requests).toBe(40 * 20);
    expect(JSON.parse(usage("2"))).toEqual(one);
    // Appended files read on by workers (each from its cached scan) give what reading them whole gives.
    const cached = (...extra: string[]) =>
      JSON.parse(
        execFileSync(process.execPath, [bin, "usage", tree.root, "--json", "--tz", "UTC", "--by", "day,session", ...extra], {
          encoding: "utf8",
          env: { ...process.env, XDG_CACHE_HOME: join(tree.root, "cache") },
        }),
      );
    cached("--threads", "2");
    for (let f = 0; f < 12; f++) {
      const line = claudeLine({ session: `s${f}`, message: `new${f}`, request: `rn${f}`, output: 7, time: "2026-03-02T11:00:00Z" });
      appendFileSync(join(tree.root, `projects/p${f % 3}/s${f}.jsonl`), `${JSON.stringify(line)}\n`);
    }
    expect(cached("--threads", "2")).toEqual(cached("--no-cache"));
  });

  it.skipIf(!existsSync(bin))("prints all of a long output to a reader that takes it slowly, then exits at once (bin.ts)", async () => {
    const tree = tempTree();
    for (let f = 0; f < 400; f++)
      tree.write(`projects/p${f % 7}/s${f}.jsonl`, [claudeLine({ session: `s${f}`, message: `m${f}`, request: `r${f}` })]);
    const child = spawn(process.execPath, [bin, "sessions", tree.root, "--json", "--no-cache", "--tz", "UTC"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Nothing is read for a while: the output (far more than a pipe holds) waits in the pipe and in the writer.
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on("close", resolve));
    const out = Buffer.concat(chunks);
    expect(out.length).toBeGreaterThan(128 * 1024);
    expect(code).toBe(0);
    expect(JSON.parse(out.toString("utf8"))).toHaveLength(400);
  });

  it.skipIf(!existsSync(join(repoRoot, "dist/usage/collect.js")))(
    "tells the caller, before scanning, that the scan runs on the workers",
    async () => {
      const tree = tempTree();
      for (let f = 0; f < 8; f++)
        tree.write(`projects/p/s${f}.jsonl`, [claudeLine({ session: `s${f}`, message: `m${f}`, request: `r${f}` })]);
      const compiled: typeof import("../../src/usage/collect.ts") = await import(
        pathToFileURL(join(repoRoot, "dist/usage/collect.js")).href
      );
      const plans: unknown[] = [];
      const collect = (threads: number) =>
        compiled.collectUsage({ paths: [tree.root], env: {}, cache: false, threads, onScan: (plan) => plans.push(plan.workers) });
      await collect(2);
      await collect(1);
      expect(plans).toEqual([2, 0]);
    },
  );
});
