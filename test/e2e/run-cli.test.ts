/**
 * `agentstream run` as a user runs it: the built binary (dist/cli/bin.js, `npm run build`) around
 * the fake agents. Exit codes, signals, output modes, stderr kept off stdout, crash-safe logs.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAll } from "../helpers/read.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const fakeAgents = join(repoRoot, "test/fixtures/fake-agents");
const fake = (script: string): string => join(fakeAgents, script);
const haveBin = existsSync(bin);
if (!haveBin) console.warn("[agentstream tests] dist/cli/bin.js not built: test/e2e/run-cli.test.ts is skipped (npm run build)");

interface CliRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

function cli(args: readonly string[], input = ""): CliRun {
  const result = spawnSync(process.execPath, [bin, ...args], {
    input,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { stdout: result.stdout, stderr: result.stderr, code: result.status };
}

/** Starts the CLI and resolves once its stdout has shown `marker`. */
function startCli(args: readonly string[]): {
  child: ReturnType<typeof spawn>;
  seen(marker: string): Promise<void>;
  done: Promise<CliRun>;
} {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  let stdout = "";
  let stderr = "";
  const waiters: { marker: string; resolve: () => void }[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    for (const w of waiters.filter((w) => stdout.includes(w.marker))) w.resolve();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const done = new Promise<CliRun>((resolve) => child.on("close", (code) => resolve({ stdout, stderr, code })));
  return {
    child,
    seen: (marker) => new Promise<void>((resolve) => (stdout.includes(marker) ? resolve() : waiters.push({ marker, resolve }))),
    done,
  };
}

describe.skipIf(!haveBin)("agentstream run (built binary, fake agents)", () => {
  it("exits with the agent's code", () => {
    expect(cli(["run", "--", process.execPath, "-e", "process.exit(3)"]).code).toBe(3);
  });

  it("says when the command does not exist and exits 127", () => {
    const result = cli(["run", "--json", "--", "agentstream-no-such-agent"]);
    expect(result.code).toBe(127);
    expect(result.stderr).toMatch(/agentstream-no-such-agent: command not found/);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "incomplete", run: { exitCode: 127, end: "not-found" } });
  });

  it("says its errors on stderr when stdout is a pipe, not only in the view", () => {
    const result = cli(["run", "--", "agentstream-no-such-agent"]);
    expect(result.code).toBe(127);
    expect(result.stdout).toMatch(/agentstream-no-such-agent: command not found/);
    expect(result.stderr).toMatch(/^agentstream run: agentstream-no-such-agent: command not found/m);
  });

  it("copies the agent's stderr without its escape sequences under --to, --stream-json and --json", () => {
    const hostile = 'process.stderr.write("warn x\\u001b]52;c;aGk=\\u0007\\u001b[2J done\\n")';
    for (const mode of [["--to", "agentstream"], ["--stream-json"], ["--json"]]) {
      const result = cli(["run", ...mode, "--", process.execPath, "-e", hostile]);
      expect(result.stderr).toMatch(/warn x.*done/);
      expect(result.stderr).not.toMatch(/[\u001b\u0007]/);
    }
  });

  it("shows a non-zero exit after a complete stream, and an incomplete stream once", () => {
    const failed = cli(["run", "--", process.execPath, fake("numbered.mjs"), "--events=2", "--every-ms=1", "--exit=3"]);
    expect(failed.code).toBe(3);
    expect(failed.stdout).toMatch(/✓ done.*\n✗ the agent exited with code 3\n/);
    const cut = cli([
      "run",
      "--from",
      "claude",
      "--width",
      "200",
      "--",
      process.execPath,
      "-e",
      'console.log(JSON.stringify({type:"system",subtype:"init",session_id:"s",model:"m"})); process.exit(3)',
    ]);
    expect(cut.code).toBe(3);
    expect(cut.stdout).toMatch(/^◆ claude-code · m\n/);
    expect(cut.stdout.match(/the stream ended/g)).toHaveLength(1);
    expect(cut.stdout.match(/exited with code 3/g)).toHaveLength(1);
  });

  it("rejects a bad duration with a one-line usage error (exit 2)", () => {
    const result = cli(["run", "--idle-timeout", "soon", "--", "claude"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")[0]).toMatch(/--idle-timeout takes a duration such as 500ms, 15s, 2m or 1h, not "soon"/);
  });

  it("leaves the agent's own --help to the agent", () => {
    const result = cli([
      "run",
      "--to",
      "agentstream",
      "--from",
      "json",
      "--",
      process.execPath,
      "-e",
      "console.log(JSON.stringify({ args: process.argv.slice(1) }))",
      "--",
      "--help",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/"raw":\{"args":\["--help"\]\}/);
  });

  it.skipIf(!hasShared)("--stream-json --final-summary: the dev-agent lifecycle on stdout, then the pretty JSON report", () => {
    const capture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
    const result = cli([
      "run",
      "--from",
      "claude",
      "--stream-json",
      "--final-summary",
      "--",
      process.execPath,
      fake("replay.mjs"),
      capture,
      "--speed=1000",
    ]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    const firstPretty = lines.indexOf("{");
    const stream = lines.slice(0, firstPretty).map((line) => JSON.parse(line) as { type: string });
    expect(stream[0]?.type).toBe("thread.started");
    expect(stream.map((r) => r.type)).toContain("item.completed");
    expect(stream.at(-1)?.type).toBe("thread.completed");
    expect(JSON.parse(lines.slice(firstPretty).join("\n"))).toMatchObject({ status: "completed", turns: 2 });
  });

  it("--to witness copies a Witness Forge agent's lines through, meta and brain on every type (as convert does)", () => {
    const dir = tempDir("run-witness");
    const stream = join(dir, "witness.ndjson");
    const lines = [
      '{"type":"analysis","content":"Thinking...","brain":"path1","meta":{"decode":{"temperature":0.5}}}',
      '{"type":"metric","content":"Flame state","brain":"path1","meta":{"k":0.013,"state":"sync","reflex_score":0.72}}',
      '{"type":"final","content":"Here is the answer.","brain":"path2","meta":{"decode":{"temperature":0.7}}}',
    ];
    writeFileSync(stream, `${lines.join("\n")}\n`);
    const result = cli(["run", "--from", "witness", "--to", "witness", "--", process.execPath, fake("replay.mjs"), stream]);
    expect(result.code).toBe(0);
    const written = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as object);
    // The agent's lines as it wrote them, then run's own notices (its exit) as debug lines.
    expect(written.slice(0, lines.length)).toEqual(lines.map((line) => JSON.parse(line) as object));
    expect(written.slice(lines.length).every((line) => (line as { type?: string }).type === "debug")).toBe(true);
  });

  it("--json prints only the summary with how the run went", () => {
    const result = cli(["run", "--json", "--from", "claude", "--", process.execPath, fake("crash-mid-line.mjs")]);
    expect(result.code).toBe(137);
    const report = JSON.parse(result.stdout) as { finalText: string; run: { end: string; complete: boolean; incompleteReason: string } };
    expect(report.finalText).toBe("Working on it.");
    expect(report.run).toMatchObject({ end: "signaled", complete: false });
    expect(report.run.incompleteReason).toMatch(/SIGKILL/);
  });

  it("reads the whole 8 MiB an agent wrote just before exiting, and a 64 MiB line without a newline, in bounded memory", () => {
    const tail = cli([
      "run",
      "--to",
      "agentstream",
      "--from",
      "json",
      "--",
      process.execPath,
      fake("exit-after-large-write.mjs"),
      "--mib=8",
    ]);
    expect(tail.code).toBe(0);
    const records = tail.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; raw?: { type?: string; lines?: number } })
      .filter((event) => event.type === "unknown");
    expect(records.at(-1)?.raw?.type).toBe("done");
    expect(records.length).toBe((records.at(-1)?.raw?.lines ?? 0) + 1);
    const long = cli(["run", "--json", "--from", "json", "--", process.execPath, fake("no-newline-64mib.mjs")]);
    expect(long.code).toBe(0);
    const report = JSON.parse(long.stdout) as { records: { tooLong: number }; run: { stdoutBytes: number } };
    expect(report.run.stdoutBytes).toBe(64 * 1024 * 1024);
    expect(report.records.tooLong).toBe(1);
    expect(long.stderr).toMatch(/line-too-long/);
  });

  it("keeps the agent's stderr off stdout: every stdout line of --to agentstream is an event", () => {
    const result = cli(["run", "--to", "agentstream", "--from", "json", "--", process.execPath, fake("flood-stderr.mjs"), "--mib=1"]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; kind?: string });
    expect(events.filter((e) => e.type === "unknown")).toHaveLength(2);
    expect(events.filter((e) => e.kind === "stderr").length).toBeGreaterThan(1000);
    expect(result.stderr).toMatch(/^log line 0: noise/);
  });

  it("shows the agent's stderr dimmed in the view and passes a piped stdin to the agent", () => {
    const code = 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{console.error("warn: "+s.trim());console.log(s.trim())})';
    const result = cli(["run", "--mode", "none", "--", process.execPath, "-e", code], "piped prompt\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/warn: piped prompt/);
    expect(result.stdout).toMatch(/^piped prompt$/m);
    expect(result.stderr).toBe("");
  });

  it("forwards SIGTERM to the agent's process group and exits 128+15", async () => {
    const run = startCli([
      "run",
      "--to",
      "agentstream",
      "--from",
      "json",
      "--",
      process.execPath,
      "-e",
      'console.log("{\\"type\\":\\"up\\"}");setInterval(()=>{},1000)',
    ]);
    await run.seen('"up"');
    run.child.kill("SIGTERM");
    expect((await run.done).code).toBe(143);
  });

  it("a second Ctrl-C sends SIGKILL to an agent that ignores the first", async () => {
    const run = startCli(["run", "--to", "agentstream", "--from", "json", "--", process.execPath, fake("ignore-sigterm.mjs")]);
    await run.seen('"ready"');
    run.child.kill("SIGINT");
    await run.seen('"ignored"');
    run.child.kill("SIGINT");
    expect((await run.done).code).toBe(137);
  });

  it("--kill-after escalates to SIGKILL by itself", async () => {
    const run = startCli([
      "run",
      "--kill-after",
      "200ms",
      "--to",
      "agentstream",
      "--from",
      "json",
      "--",
      process.execPath,
      fake("ignore-sigterm.mjs"),
    ]);
    await run.seen('"ready"');
    run.child.kill("SIGTERM");
    expect((await run.done).code).toBe(137);
  });

  it("--idle-timeout ends a silent agent with a clear error and exit 124", () => {
    const result = cli([
      "run",
      "--idle-timeout",
      "300ms",
      "--heartbeat",
      "100ms",
      "--mode",
      "none",
      "--",
      process.execPath,
      "-e",
      "setTimeout(()=>{},60000)",
    ]);
    expect(result.code).toBe(124);
    expect(result.stdout).toMatch(/✗ error \(idle-timeout\): the agent said nothing for/);
    expect(result.stdout).toMatch(/still working/);
  });

  it("outlives stdout's reader (run … | head -5): the agent runs to its end, its logs and summary complete, its exit code ours", async () => {
    const dir = tempDir("run-head", { until: "file" });
    const events = 300;
    const args = ["run", "--log", dir, "--", process.execPath, fake("numbered.mjs"), `--events=${events}`, "--every-ms=2", "--exit=3"];
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // What `head -5` does: read five lines, then close its end of the pipe.
    let seen = "";
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString("utf8");
        if (seen.split("\n").length > 5) {
          child.stdout?.destroy();
          resolve();
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", (exitCode) => resolve(exitCode)));
    expect(code).toBe(3);
    expect(seen).not.toMatch(/message 300/); // the reader went away well before the end
    expect(stderr).toMatch(/stdout was closed: the agent runs on to its end/);
    const file = (suffix: string): string => join(dir, readdirSync(dir).find((name) => name.endsWith(suffix)) ?? suffix);
    const logged = readAll([readFileSync(file(".events.ndjson"))], { dialect: "agentstream" }).events;
    expect(logged.filter((e) => e.type === "message.completed")).toHaveLength(events);
    expect(logged.some((e) => e.type === "session.completed")).toBe(true);
    expect(logged.at(-1)).toMatchObject({ type: "notice", kind: "exit", details: { exitCode: 3 } });
    const oneshot = readFileSync(file("-oneshot-log.json"), "utf8").trim().split("\n");
    expect(oneshot.length).toBeGreaterThan(events);
    expect(JSON.parse(readFileSync(file(".summary.json"), "utf8"))).toMatchObject({ exitCode: 3, complete: true });
  });

  it("logs survive a SIGKILL of agentstream itself: every file intact up to its last complete line", async () => {
    const dir = tempDir("run-kill", { until: "file" });
    const run = startCli([
      "run",
      "--log",
      dir,
      "--to",
      "agentstream",
      "--from",
      "json",
      "--",
      process.execPath,
      fake("exit-after-large-write.mjs"),
      "--mib=64",
    ]);
    await run.seen('"seq":1000,');
    // The events log is written by a worker thread that may trail stdout on a busy machine: kill once it has begun.
    await eventsLogBegun(dir);
    run.child.kill("SIGKILL");
    await run.done;
    const [events] = readdirSync(dir).filter((name) => name.endsWith(".events.ndjson"));
    const text = readFileSync(join(dir, events ?? ""), "utf8");
    const complete = text.slice(0, text.lastIndexOf("\n") + 1);
    expect(
      complete
        .split("\n")
        .filter(Boolean)
        .every((line) => JSON.parse(line) !== undefined),
    ).toBe(true);
    const read = readAll([readFileSync(join(dir, events ?? ""))], { dialect: "agentstream" });
    // The events log is written by a worker thread and may trail stdout; what it holds is whole.
    expect(read.events.length).toBeGreaterThan(0);
    expect(read.issues.filter((i) => i.severity === "error")).toEqual([]);
  });

  it("the summary log lists every tool call of a run with the view (spooled, not held), and leaves no spool behind", () => {
    const dir = join(tempDir("run-tool-spool"), "logs");
    const run = cli([
      "run",
      "--from",
      "claude",
      "--mode",
      "none",
      "--heartbeat",
      "0",
      "--log",
      dir,
      "--",
      process.execPath,
      fake("many-tools.mjs"),
      "--tools=3000",
    ]);
    expect(run.code).toBe(0);
    const names = readdirSync(dir);
    expect(names.filter((name) => name.startsWith("."))).toEqual([]);
    const summaryFile = join(dir, names.find((name) => name.endsWith(".summary.json")) ?? ".summary.json");
    const toolCalls = (JSON.parse(readFileSync(summaryFile, "utf8")) as { summary: { toolCalls: { status: string }[] } }).summary.toolCalls;
    expect(toolCalls).toHaveLength(3000);
    expect(toolCalls.every((call) => call.status === "success")).toBe(true);
  });
});

/** Resolves once a run's events log in `dir` holds a byte (at most 10 s). */
async function eventsLogBegun(dir: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const [events] = readdirSync(dir).filter((name) => name.endsWith(".events.ndjson"));
    if (events !== undefined && statSync(join(dir, events)).size > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
