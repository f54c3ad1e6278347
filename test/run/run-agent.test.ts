/**
 * runAgent() against the fake agents (test/fixtures/fake-agents/) and real captures replayed with
 * their timing: what an orchestrator embedding it relies on (events, exit codes, timeouts, the
 * ralph tools-in-flight rule, stderr as events, the full stdout drain, logs).
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent, EventOf } from "../../src/model/events.ts";
import { runAgent, type RunAgentOptions, type RunResult } from "../../src/run/index.ts";
import { checkSequence } from "../../src/formats/agentstream/rules.ts";
import { readAll, readFile } from "../helpers/read.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { ofType } from "../helpers/events.ts";
import { tempDir } from "../helpers/temp.ts";

const fakeAgents = join(repoRoot, "test/fixtures/fake-agents");

interface Finished {
  readonly events: AgentEvent[];
  readonly result: RunResult;
}

/** Runs a fake agent script with node and collects every event and the result. */
async function runFake(script: string, args: readonly string[], options: RunAgentOptions = {}): Promise<Finished> {
  const run = runAgent(process.execPath, [join(fakeAgents, script), ...args], options);
  const events: AgentEvent[] = [];
  for await (const event of run.events) events.push(event);
  return { events, result: await run.result };
}

const noticesOf = (events: readonly AgentEvent[], kind: string): EventOf<"notice">[] =>
  ofType(events, "notice").filter((n) => n.kind === kind);
/** The events that came from the agent's stdout (not ours: stderr lines, heartbeats, exit notes). */
const fromStdout = (events: readonly AgentEvent[]): AgentEvent[] =>
  events.filter(
    (e) =>
      e.type !== "heartbeat" && !(e.type === "notice" && e.source?.line === undefined && ["stderr", "exit", "incomplete"].includes(e.kind)),
  );

/** Whether `time` is an RFC 3339 UTC time between `since` and now (a receipt time of this run). */
function inRun(time: string | undefined, since: number): boolean {
  if (time === undefined || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(time)) return false;
  const ms = Date.parse(time);
  return ms >= since && ms <= Date.now();
}

/** True while `pid` runs (a zombie waiting for a reaper counts as gone). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // No /proc (macOS): ask the kernel.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("runAgent", () => {
  it.skipIf(!hasShared)(
    "replays a real Claude Code capture with its timing into the same events the reader makes from the file",
    async () => {
      const capture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
      const before = Date.now();
      const { events, result } = await runFake("replay.mjs", [capture, "--speed=1000", "--max-gap-ms=20"], { dialect: "claude" });
      const expected = readFile(capture, { dialect: "claude" }).events;
      // Every event has a time under run: the capture's own where its record had one, else when run received it.
      const got = fromStdout(events);
      expect(got.map((event, i) => expected[i]?.time ?? (inRun(event.time, before) ? "received" : event.time))).toEqual(
        expected.map((event) => event.time ?? "received"),
      );
      const strip = (list: readonly AgentEvent[]) => list.map(({ seq: _seq, time: _time, ...rest }) => rest);
      expect(strip(got)).toEqual(strip(expected));
      expect(result).toMatchObject({ exitCode: 0, end: "exited", complete: true, dialect: "claude" });
      expect(result.summary.status).toBe("success");
      expect(checkSequence(events)).toEqual([]);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    },
  );

  it.skipIf(!hasShared)(
    "lists the tool calls in the summary unless listToolCalls is false (the list grows with the run); a summary log always has them, from a spool",
    async () => {
      const capture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
      const replay = (options: RunAgentOptions) =>
        runFake("replay.mjs", [capture, "--speed=1000", "--max-gap-ms=20"], { dialect: "claude", heartbeatMs: 0, ...options });
      const listed = (await replay({})).result.summary;
      expect(listed.toolCalls.length).toBeGreaterThan(0);
      const unlisted = (await replay({ listToolCalls: false })).result.summary;
      expect(unlisted.toolCalls).toEqual([]);
      expect({ ...unlisted, toolCalls: listed.toolCalls, durationMs: listed.durationMs }).toEqual(listed);
      const dir = join(tempDir("run-tools"), "logs");
      const logged = await replay({ listToolCalls: false, log: dir, runId: "t" });
      // The run holds no list for the log either: the summary log's comes from a spool on disk, removed at the end.
      expect(logged.result.summary.toolCalls).toEqual([]);
      const text = readFileSync(join(dir, "t.summary.json"), "utf8");
      const summaryLog = JSON.parse(text) as RunResult;
      expect(summaryLog.summary.toolCalls).toEqual(listed.toolCalls);
      expect(text).toBe(
        `${JSON.stringify({ ...logged.result, summary: { ...logged.result.summary, toolCalls: listed.toolCalls } }, null, 2)}\n`,
      );
      expect(readdirSync(dir).sort()).toEqual(["t-oneshot-log.json", "t.events.ndjson", "t.raw", "t.stderr", "t.summary.json"]);
    },
  );

  it.skipIf(!hasShared)(
    "stamps every event the agent gave no time with when run received it: no log line without a time, no epoch",
    async () => {
      const dir = join(tempDir("run-times"), "logs");
      const capture = sharedPath("fixtures/codex/md2okf_command_failed_exit2_then_success.jsonl");
      const before = Date.now();
      const { events } = await runFake("replay.mjs", [capture, "--speed=1000"], { dialect: "codex", log: dir, runId: "t", heartbeatMs: 0 });
      expect(events.filter((event) => !inRun(event.time, before))).toEqual([]);
      const logged = readFileSync(join(dir, "t.events.ndjson"), "utf8").trimEnd().split("\n");
      expect(logged.filter((line) => !inRun((JSON.parse(line) as AgentEvent).time, before))).toEqual([]);
      const packets = readFileSync(join(dir, "t-oneshot-log.json"), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { timestamp: number; ts_ms: number });
      expect(packets.length).toBeGreaterThan(3);
      for (const packet of packets) {
        expect(inRun(new Date(packet.ts_ms).toISOString(), before)).toBe(true);
        expect(packet.timestamp).toBe(packet.ts_ms / 1000);
      }
      // Sorting by receipt time keeps the stream's order.
      expect(packets.map((p) => p.ts_ms)).toEqual(packets.map((p) => p.ts_ms).sort((a, b) => a - b));
    },
  );

  it("reports a crash mid-line: 128+9, the torn tail, and why the stream is incomplete", async () => {
    const { events, result } = await runFake("crash-mid-line.mjs", [], { dialect: "claude" });
    expect(result).toMatchObject({ exitCode: 137, end: "signaled", agentSignal: "SIGKILL", complete: false });
    expect(result.incompleteReason).toMatch(/SIGKILL.*cut off/);
    expect(result.issues.map((i) => i.code)).toContain("truncated-tail");
    expect(noticesOf(events, "incomplete")[0]?.text).toMatch(/final record/);
    expect(ofType(events, "message.completed").map((m) => m.text)).toEqual(["Working on it."]);
  });

  it("reads everything an agent wrote just before it exited (no lost tail)", async () => {
    const { events, result } = await runFake("exit-after-large-write.mjs", ["--mib=4"], { dialect: "json" });
    const records = ofType(events, "unknown").map((e) => e.raw as { type?: string; lines?: number });
    const done = records.at(-1);
    expect(done?.type).toBe("done");
    expect(records.length).toBe((done?.lines ?? 0) + 1);
    expect(result.exitCode).toBe(0);
  });

  it("a slow consumer pauses the agent's stdout without losing a line or taking the pause for leftover processes", async () => {
    // 15 500 lines: the queue passes its 256 events while the agent still writes, so its stdout is paused.
    const run = runAgent(process.execPath, [join(fakeAgents, "exit-after-large-write.mjs"), "--mib=4"], { dialect: "json", drainMs: 50 });
    const events: AgentEvent[] = [];
    for await (const event of run.events) {
      // Fall behind at the start (the queue passes its high-water mark and stdout is paused), then catch up.
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 300));
      events.push(event);
    }
    const result = await run.result;
    const records = ofType(events, "unknown").map((e) => e.raw as { type?: string; lines?: number });
    expect(records.at(-1)?.type).toBe("done");
    expect(records.length).toBe((records.at(-1)?.lines ?? 0) + 1);
    expect(noticesOf(events, "leftover-processes")).toEqual([]);
    expect(result.exitCode).toBe(0);
  });

  it("turns a stderr flood into stderr events without blocking or mixing it into stdout", async () => {
    const { events, result } = await runFake("flood-stderr.mjs", ["--mib=2"], { dialect: "json" });
    const records = ofType(events, "unknown").map((e) => e.raw as { type?: string; stderrBytes?: number });
    expect(records.map((r) => r.type)).toEqual(["start", "end"]);
    expect(result.stderrBytes).toBe(records[1]?.stderrBytes);
    const lines = noticesOf(events, "stderr");
    expect(lines[0]?.text).toMatch(/^log line 0: noise/);
    expect(lines.length).toBe(Number(/log line (\d+)/.exec(lines.at(-1)?.text ?? "")?.[1]) + 1);
    expect(lines.every((n) => n.level === "info" && !n.text.includes("\n"))).toBe(true);
  });

  it("keeps memory bounded on a 20 MiB line without a newline: one line-too-long issue, every byte counted", async () => {
    const { result } = await runFake("no-newline-64mib.mjs", ["--mib=20"], { dialect: "json" });
    expect(result.stdoutBytes).toBe(20 * 1024 * 1024);
    expect(result.issues.map((i) => i.code)).toContain("line-too-long");
    expect(result.exitCode).toBe(0);
  });

  it("says clearly that a command does not exist, with exit code 127", async () => {
    const run = runAgent("agentstream-no-such-agent", ["-p", "hi"]);
    const events: AgentEvent[] = [];
    for await (const event of run.events) events.push(event);
    const result = await run.result;
    expect(result).toMatchObject({ exitCode: 127, end: "not-found", agentExitCode: null });
    const [error] = ofType(events, "error");
    expect(error).toMatchObject({ code: "command-not-found", fatal: true });
    expect(error?.message).toMatch(/agentstream-no-such-agent: command not found/);
  });

  it("emits heartbeats while the agent is silent and never ends it while a tool call is in flight", async () => {
    // The tool is silent three times longer than the idle timeout.
    const { events, result } = await runFake("slow-tool.mjs", ["--tool-ms=1500"], {
      dialect: "claude",
      heartbeatMs: 50,
      idleTimeoutMs: 500,
    });
    expect(result).toMatchObject({ exitCode: 0, end: "exited", complete: true });
    const heartbeats = ofType(events, "heartbeat");
    expect(heartbeats.every((h) => (h.idleMs ?? 0) >= 50)).toBe(true);
    // The silence of the tool call is filled with heartbeats, their idle time growing.
    const started = events.findIndex((e) => e.type === "tool.started");
    const completed = events.findIndex((e) => e.type === "tool.completed");
    const during = heartbeats.filter((h) => h.seq > started && h.seq < completed);
    expect(during.length).toBeGreaterThan(2);
    expect(during.map((h) => h.idleMs ?? 0)).toEqual([...during.map((h) => h.idleMs ?? 0)].sort((a, b) => a - b));
    expect(Math.max(...during.map((h) => h.idleMs ?? 0))).toBeGreaterThan(500);
    expect(ofType(events, "error")).toEqual([]);
  });

  it("ends a silent agent on the idle timeout with an error event and exit code 124", async () => {
    // The idle clock starts at spawn: 2 s leaves room for a slow node start before the fake says "ready".
    const { events, result } = await runFake("ignore-sigterm.mjs", [], { dialect: "json", idleTimeoutMs: 2000, killAfterMs: 200 });
    expect(result).toMatchObject({ exitCode: 124, end: "idle-timeout", agentSignal: "SIGKILL", complete: false });
    expect(ofType(events, "error")).toMatchObject([{ code: "idle-timeout", scope: "session", fatal: true }]);
    // It shrugged off our SIGTERM first (its own record says so), then SIGKILL ended it.
    expect(ofType(events, "unknown").map((e) => (e.raw as { type?: string }).type)).toEqual(["ready", "ignored"]);
  });

  it("bounds the whole run with timeoutMs (exit 124) even while the agent keeps talking", async () => {
    const { events, result } = await runFake("replay.mjs", [join(fakeAgents, "timed.ndjson"), "--speed=1", "--max-gap-ms=5000"], {
      dialect: "claude",
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ exitCode: 124, end: "timeout", complete: false });
    expect(ofType(events, "error")[0]?.code).toBe("timeout");
  });

  it("aborts through an AbortSignal: SIGTERM, then SIGKILL after killAfterMs for an agent that ignores it", async () => {
    const controller = new AbortController();
    const run = runAgent(process.execPath, [join(fakeAgents, "ignore-sigterm.mjs")], {
      dialect: "json",
      signal: controller.signal,
      killAfterMs: 200,
    });
    const seen: string[] = [];
    for await (const event of run.events) {
      if (event.type !== "unknown") continue;
      seen.push(String((event.raw as { type?: string }).type));
      if (seen.length === 1) controller.abort();
    }
    const result = await run.result;
    expect(seen).toEqual(["ready", "ignored"]);
    expect(result).toMatchObject({ exitCode: 137, agentSignal: "SIGKILL" });
  });

  it("ends processes the agent left holding its stdout, after the drain time, and still reports the agent's code", async () => {
    const { events, result } = await runFake("orphan-child.mjs", ["--child-ms=30000"], { dialect: "json", drainMs: 200, killAfterMs: 200 });
    const child = ofType(events, "unknown").map((e) => e.raw as { type?: string; pid?: number })[0];
    expect(child?.type).toBe("child");
    expect(result.exitCode).toBe(0);
    expect(noticesOf(events, "leftover-processes")).toHaveLength(1);
    expect(isAlive(child?.pid ?? 0)).toBe(false);
  });

  it("passes the environment and working directory, and gives stdin only when asked", async () => {
    const dir = tempDir("run-cwd");
    const code = 'process.stdout.write(JSON.stringify({ cwd: process.cwd(), flag: process.env.RUN_FLAG }) + "\\n")';
    const run = runAgent(process.execPath, ["-e", code], { cwd: dir, env: { ...process.env, RUN_FLAG: "on" }, dialect: "json" });
    const events: AgentEvent[] = [];
    for await (const event of run.events) events.push(event);
    expect(ofType(events, "unknown")[0]?.raw).toEqual({ cwd: dir, flag: "on" });
    expect((await run.result).exitCode).toBe(0);
  });

  it("with read.redact, secrets are replaced in events (stderr lines included) and the events log; the raw and stderr logs stay verbatim", async () => {
    const dir = join(tempDir("run-redact"), "logs");
    const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345xyzw";
    const code = `console.error("token ${secret}"); console.log(JSON.stringify({ type: "note", key: "${secret}" }))`;
    const run = runAgent(process.execPath, ["-e", code], { dialect: "json", read: { redact: true }, log: dir, runId: "r" });
    const events: AgentEvent[] = [];
    for await (const event of run.events) events.push(event);
    const result = await run.result;
    expect(noticesOf(events, "stderr").map((n) => n.text)).toEqual(["token [REDACTED:github-token]"]);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(result.redactions).toEqual({ "github-token": 2 });
    expect(readFileSync(join(dir, "r.events.ndjson"), "utf8")).not.toContain(secret);
    expect(readFileSync(join(dir, "r-oneshot-log.json"), "utf8")).not.toContain(secret);
    expect(readFileSync(join(dir, "r.raw"), "utf8")).toContain(secret);
    expect(readFileSync(join(dir, "r.stderr"), "utf8")).toBe(`token ${secret}\n`);
  });

  it("writes crash-safe 0600 logs: raw is the agent's stdout byte for byte, events and oneshot packets line by line", async () => {
    const dir = join(tempDir("run-logs"), "logs");
    const capture = join(fakeAgents, "timed.ndjson");
    const { events, result } = await runFake("replay.mjs", [capture, "--speed=1000"], {
      dialect: "claude",
      log: dir,
      runId: "r1",
      heartbeatMs: 0,
    });
    expect(readdirSync(dir).sort()).toEqual(["r1-oneshot-log.json", "r1.events.ndjson", "r1.raw", "r1.stderr", "r1.summary.json"]);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    const hash = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");
    expect(hash(readFileSync(join(dir, "r1.raw")))).toBe(hash(readFileSync(capture)));
    const logged = readFileSync(join(dir, "r1.events.ndjson"), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as AgentEvent);
    expect(logged).toEqual(events);
    const packets = readAll([readFileSync(join(dir, "r1-oneshot-log.json"))], { dialect: "oneshot" });
    expect(packets.issues.filter((i) => i.severity !== "info")).toEqual([]);
    expect(ofType(packets.events, "message.completed").map((m) => m.text)).toEqual(["one second later"]);
    const summary = JSON.parse(readFileSync(join(dir, "r1.summary.json"), "utf8")) as RunResult;
    expect(summary).toMatchObject({ runId: "r1", exitCode: 0, complete: true, logs: { raw: join(dir, "r1.raw") } });
    expect(result.logs?.events).toBe(join(dir, "r1.events.ndjson"));
  });
});
