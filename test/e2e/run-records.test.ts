/**
 * The records `agentstream run` writes, as a user runs it (the built binary around the fake agents and
 * real captures replayed): every record stamped with its receipt time, the dev-agent fields the run
 * knows (`--stream-json`), and the oneshot log's completion, session id, Aider mapping and raw records
 * (docs/run.md, docs/events.md).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateFormat } from "../helpers/convert.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const replay = join(repoRoot, "test/fixtures/fake-agents/replay.mjs");
const haveBin = existsSync(bin);

function cli(args: readonly string[]): { stdout: string; stderr: string; code: number | null } {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { stdout: result.stdout, stderr: result.stderr, code: result.status };
}

/** An executable named like a real agent (so `run` reads its command line as that agent's) that replays a capture. */
function fakeNamed(name: string, capture: string, exitCode = 0): string {
  const path = join(tempDir("fake-agent"), name);
  writeFileSync(path, `#!/bin/sh\n"${process.execPath}" "${replay}" "${capture}" --speed=1000 || exit 2\nexit ${exitCode}\n`);
  chmodSync(path, 0o755);
  return path;
}

const json = (text: string): Record<string, unknown>[] =>
  text
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Whether an instant lies between `since` and now: a receipt time of this run, never the epoch. */
const inRun = (ms: number, since: number): boolean => ms >= since && ms <= Date.now();

describe.skipIf(!haveBin || !hasShared)("agentstream run: the records it writes", () => {
  const codexCapture = sharedPath("fixtures/codex/md2okf_command_failed_exit2_then_success.jsonl");

  it("--stream-json: every record stamped when it was received; task from the command line; the fields the run knows", () => {
    const codex = fakeNamed("codex", codexCapture);
    const before = Date.now();
    const result = cli(["run", "--stream-json", "--", codex, "exec", "--json", "--skip-git-repo-check", "add a README"]);
    expect(result.code).toBe(0);
    const lines = json(result.stdout);
    expect(lines.filter((line) => !inRun(Date.parse(line.timestamp as string), before))).toEqual([]);
    expect(validateFormat("codex-thread", result.stdout)).toEqual([]);
    expect(lines[0]).toMatchObject({ type: "thread.started", task: "add a README", headless: true });
    const turnStarted = lines.find((line) => line.type === "turn.started");
    expect(turnStarted?.message_count).toEqual(expect.any(Number));
    expect(lines.filter((line) => line.type === "turn.completed").map((line) => line.has_final_report)).toContain(true);
    const commands = lines.filter((line) => line.type === "item.completed" && line.kind === "tool_call");
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command.duration_ms).toEqual(expect.any(Number));
    const report = lines.at(-1)?.final_report as Record<string, unknown>;
    expect(report).toMatchObject({ task: "add a README", turns: expect.any(Number) });
    expect(report.duration_ms).toEqual(expect.any(Number));
  });

  it("--task says the task when the command line names none", () => {
    const result = cli([
      "run",
      "--stream-json",
      "--task",
      "probe the skill",
      "--from",
      "codex",
      "--",
      process.execPath,
      replay,
      codexCapture,
    ]);
    expect(json(result.stdout)[0]).toMatchObject({ task: "probe the skill", headless: true });
  });

  it("the events and oneshot logs: a time on every line, never 0", () => {
    const dir = tempDir("run-records");
    const before = Date.now();
    cli(["run", "--json", "--log", dir, "--from", "codex", "--", process.execPath, replay, codexCapture, "--speed=1000"]);
    const [events] = readdirSync(dir).filter((name) => name.endsWith(".events.ndjson"));
    const [oneshot] = readdirSync(dir).filter((name) => name.endsWith("-oneshot-log.json"));
    const logged = json(readFileSync(join(dir, events ?? ""), "utf8"));
    expect(logged.filter((event) => typeof event.time !== "string" || !inRun(Date.parse(event.time), before))).toEqual([]);
    const packets = json(readFileSync(join(dir, oneshot ?? ""), "utf8"));
    expect(packets.filter((packet) => !inRun(packet.ts_ms as number, before))).toEqual([]);
  });

  it("run --to oneshot -- aider: prose as thoughts, edits and commits as tool_output, and a completion from the exit code", () => {
    const aider = fakeNamed("aider", sharedPath("fixtures/aider/aider-website_hello-world-flask.md.txt"));
    const dir = tempDir("run-aider");
    const result = cli(["run", "--to", "oneshot", "--log", dir, "--", aider, "--no-pretty", "-m", "make a flask app"]);
    expect(result.code).toBe(0);
    const [oneshot] = readdirSync(dir).filter((name) => name.endsWith("-oneshot-log.json"));
    for (const text of [result.stdout, readFileSync(join(dir, oneshot ?? ""), "utf8")]) {
      const packets = json(text);
      expect(validateFormat("oneshot", text)).toEqual([]);
      expect(packets.filter((p) => p.type === "thought").length).toBeGreaterThan(0);
      expect(new Set(packets.filter((p) => p.type === "tool_output").map((p) => (p.data as { tool: string }).tool))).toEqual(
        new Set(["edit", "git"]),
      );
      expect(packets.at(-1)).toMatchObject({ type: "completion", data: { status: "success", exit_code: 0, synthesized: true } });
    }
  });

  it("an agent that exits 3 with no end record: a failure completion", () => {
    const aider = fakeNamed("aider", sharedPath("fixtures/aider/aider-website_hello-world-flask.md.txt"), 3);
    const result = cli(["run", "--to", "oneshot", "--", aider, "-m", "x"]);
    expect(result.code).toBe(3);
    expect(json(result.stdout).at(-1)).toMatchObject({ type: "completion", data: { status: "failure", exit_code: 3 } });
  });

  it("Cline under run: oneshot_id is the run's id, not unknown", () => {
    const dir = tempDir("run-cline");
    const capture = sharedPath("fixtures/cline/oneshot_sample-cline-activity_cli-1.0.9.jsonl");
    const result = cli([
      "run",
      "--to",
      "oneshot",
      "--log",
      dir,
      "--from",
      "cline",
      "--",
      process.execPath,
      replay,
      capture,
      "--speed=1000",
    ]);
    const [oneshot] = readdirSync(dir).filter((name) => name.endsWith("-oneshot-log.json"));
    const runId = (oneshot ?? "").replace(/-oneshot-log\.json$/, "");
    expect(runId).not.toBe("");
    expect(new Set(json(result.stdout).map((p) => p.oneshot_id))).toEqual(new Set([runId]));
    expect(new Set(json(readFileSync(join(dir, oneshot ?? ""), "utf8")).map((p) => p.oneshot_id))).toEqual(new Set([runId]));
  });

  it("--include-raw: oneshot packets (stdout and log) carry the record, a 64-bit integer exact", () => {
    const dir = tempDir("run-raw");
    const capture = join(tempDir("raw-capture"), "codex.jsonl");
    writeFileSync(
      capture,
      '{"type":"thread.started","thread_id":"t-1"}\n{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi"},"history_log_id":1104763548210798038}\n',
    );
    const result = cli([
      "run",
      "--to",
      "oneshot",
      "--include-raw",
      "--log",
      dir,
      "--from",
      "codex",
      "--",
      process.execPath,
      replay,
      capture,
    ]);
    const [oneshot] = readdirSync(dir).filter((name) => name.endsWith("-oneshot-log.json"));
    for (const text of [result.stdout, readFileSync(join(dir, oneshot ?? ""), "utf8")]) {
      const message = text.split("\n").find((line) => line.includes('"type":"message"'));
      expect(message).toContain('"history_log_id":1104763548210798038');
      expect(message).toContain('"raw":{');
    }
  });
});
