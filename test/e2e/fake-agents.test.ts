/**
 * The fake agents in test/fixtures/fake-agents/ do what their README promises, so the tests of
 * `agentstream run` (#11) can rely on them. Each is spawned with node:child_process as `run` will.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAll } from "../helpers/read.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";

const fakeAgents = join(repoRoot, "test/fixtures/fake-agents");

interface Finished {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function start(script: string, args: readonly string[] = []): ChildProcess {
  return spawn(process.execPath, [join(fakeAgents, script), ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

/** Everything a process wrote, once its stdout and stderr are closed and it has exited. */
function finish(child: ChildProcess): Promise<Finished> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), code, signal }));
  });
}

/** Resolves with the first stdout line that satisfies `test`, parsed. */
function lineMatching(
  child: ChildProcess,
  test: (record: { type?: string; pid?: number }) => boolean,
): Promise<{ type?: string; pid?: number }> {
  return new Promise((resolve) => {
    let pending = "";
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      const found = lines.map((line) => JSON.parse(line) as { type?: string; pid?: number }).find(test);
      if (found !== undefined) {
        child.stdout?.off("data", onData);
        resolve(found);
      }
    };
    child.stdout?.on("data", onData);
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("fake agents", () => {
  it("replay.mjs writes a capture byte for byte, with its gaps scaled", async () => {
    const capture = join(fakeAgents, "timed.ndjson");
    const run = await finish(start("replay.mjs", [capture, "--speed=20"]));
    expect(run.code).toBe(0);
    expect(run.stdout.equals(readFileSync(capture))).toBe(true);
  });

  it.skipIf(!hasShared)("replay.mjs replays a real Claude Code capture that our reader then reads like the file", async () => {
    const capture = sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl");
    const run = await finish(start("replay.mjs", [capture, "--speed=1000", "--max-gap-ms=5"]));
    expect(run.code).toBe(0);
    expect(run.stdout.equals(readFileSync(capture))).toBe(true);
    expect(readAll([run.stdout], { dialect: "auto" }).dialect).toBe("claude");
  });

  it("crash-mid-line.mjs leaves half a line and dies by SIGKILL", async () => {
    const run = await finish(start("crash-mid-line.mjs"));
    expect(run.signal).toBe("SIGKILL");
    const lines = run.stdout.toString("utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines.slice(0, 2).map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(["system", "assistant"]);
    expect(lines[2]?.startsWith('{"type":"assistant"')).toBe(true);
    expect(() => JSON.parse(lines[2] ?? "")).toThrow();
  });

  it("no-newline-64mib.mjs writes 64 MiB without a single newline", async () => {
    const child = start("no-newline-64mib.mjs");
    let bytes = 0;
    let newlines = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (chunk.includes(0x0a)) newlines++;
    });
    const [code] = await new Promise<[number | null]>((resolve) => child.on("close", (exitCode) => resolve([exitCode])));
    expect(code).toBe(0);
    expect(bytes).toBe(64 * 1024 * 1024);
    expect(newlines).toBe(0);
  });

  it("ignore-sigterm.mjs outlives SIGTERM and SIGINT, and only SIGKILL ends it", async () => {
    const child = start("ignore-sigterm.mjs");
    const done = finish(child);
    await lineMatching(child, (record) => record.type === "ready");
    const ignored = lineMatching(child, (record) => record.type === "ignored");
    child.kill("SIGTERM");
    await ignored;
    expect(child.exitCode).toBe(null);
    expect(child.signalCode).toBe(null);
    child.kill("SIGKILL");
    const run = await done;
    expect(run.signal).toBe("SIGKILL");
  });

  it("exit-after-large-write.mjs exits 0 right after 8 MiB, and every byte still arrives", async () => {
    const run = await finish(start("exit-after-large-write.mjs"));
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThanOrEqual(8 * 1024 * 1024 - 1024);
    const lines = run.stdout.toString("utf8").trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1) ?? "") as { type: string; lines: number };
    expect(last.type).toBe("done");
    expect(lines).toHaveLength(last.lines + 1);
  });

  it("flood-stderr.mjs writes 16 MiB of stderr between its two stdout lines", async () => {
    const run = await finish(start("flood-stderr.mjs"));
    expect(run.code).toBe(0);
    const lines = run.stdout
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; stderrBytes?: number });
    expect(lines.map((line) => line.type)).toEqual(["start", "end"]);
    expect(run.stderr.length).toBe(lines[1]?.stderrBytes);
    expect(run.stderr.length).toBeGreaterThanOrEqual(16 * 1024 * 1024);
  });

  it("orphan-child.mjs exits 0 while its child keeps stdout open", async () => {
    const child = start("orphan-child.mjs");
    const done = finish(child);
    const { pid } = await lineMatching(child, (record) => record.type === "child");
    expect(typeof pid).toBe("number");
    const code = await new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(0);
    try {
      // The parent is gone, the child still holds the pipe: stdout has not ended.
      expect(isAlive(pid ?? -1)).toBe(true);
      expect(child.stdout?.readableEnded).toBe(false);
    } finally {
      if (pid !== undefined && isAlive(pid)) process.kill(pid, "SIGKILL");
    }
    const run = await done;
    expect(run.stdout.toString("utf8")).not.toContain("child-exit");
  });

  it("a command that does not exist fails with ENOENT, and with 127 through a shell", async () => {
    const error = await new Promise<NodeJS.ErrnoException>((resolve) =>
      spawn("agentstream-no-such-agent", [], { stdio: "ignore" }).on("error", resolve),
    );
    expect(error.code).toBe("ENOENT");
    const run = await finish(spawn("sh", ["-c", "agentstream-no-such-agent"], { stdio: ["ignore", "pipe", "pipe"] }));
    expect(run.code).toBe(127);
    expect(run.stderr.toString("utf8")).toContain("agentstream-no-such-agent");
  });

  it("numbered.mjs writes its session's numbered messages, then the result", async () => {
    const run = await finish(start("numbered.mjs", ["--session=n-1", "--events=3", "--every-ms=1"]));
    const records = run.stdout
      .toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.type)).toEqual(["system", "assistant", "assistant", "assistant", "result"]);
    expect(records.every((r) => r.session_id === "n-1")).toBe(true);
    expect(records.slice(1, 4).map((r) => r.message.content[0].text)).toEqual(["message 1", "message 2", "message 3"]);
  });
});
