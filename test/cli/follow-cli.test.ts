/**
 * `render`, `convert` and `summary` with --follow, through the built binary in a child process: the
 * test appends real captures to a file in pieces, truncates and replaces it, then sends Ctrl-C
 * (SIGINT) and checks what was printed: the same as reading the whole file, a restart reported on
 * stderr, the footer or summary printed at the end, exit 0.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, renameSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const claude = hasShared ? readFileSync(sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl")) : Buffer.alloc(0);
const codex = hasShared ? readFileSync(sharedPath("fixtures/codex/agentcmd_exec_json_stream-output-1.jsonl")) : Buffer.alloc(0);

interface Followed {
  readonly child: ChildProcess;
  out(): string;
  err(): string;
  until(what: string, condition: () => boolean): Promise<void>;
  /** Ctrl-C, then the exit code. */
  interrupt(): Promise<number | null>;
}

function followWith(args: readonly string[]): Followed {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    async until(what, condition) {
      for (let waited = 0; !condition(); waited += 20) {
        if (waited > 20_000) {
          child.kill("SIGKILL");
          throw new Error(`agentstream ${args.join(" ")} never printed ${what}; stdout: ${out.slice(-500)}; stderr: ${err}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async interrupt() {
      child.kill("SIGINT");
      return exited;
    },
  };
}

/** Appends `bytes` in pieces of 1 to 997 bytes (lines and UTF-8 characters cut anywhere), pausing now and then. */
async function appendInPieces(path: string, bytes: Buffer): Promise<void> {
  for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7 + 3) % 997 || 1) {
    appendFileSync(path, bytes.subarray(at, at + size));
    if (size % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function tempFile(content: Buffer | string = ""): string {
  const path = join(tempDir("follow-cli", { until: "file" }), "agent.jsonl");
  writeFileSync(path, content);
  return path;
}

const run = (args: readonly string[]): string => execFileSync(process.execPath, [bin, ...args], { encoding: "utf8" });

describe.skipIf(!existsSync(bin) || !hasShared)("--follow (built binary)", () => {
  it("convert -f writes what convert writes for the whole file, as the file grows; Ctrl-C ends it with exit 0", async () => {
    const path = tempFile(claude.subarray(0, 1000)); // cut inside a line: it waits for its end
    const followed = followWith(["convert", "-f", "--to", "agentstream", path]);
    await appendInPieces(path, claude.subarray(1000));
    await followed.until("the session's end", () => followed.out().includes('"type":"session.completed"'));
    expect(await followed.interrupt()).toBe(0);
    expect(followed.out()).toBe(run(["convert", "--to", "agentstream", path]));
    expect(followed.err()).toBe("");
  });

  it("render -f shows the session as it is written and prints the footer at Ctrl-C", async () => {
    const path = tempFile();
    const followed = followWith(["render", "-f", "--mode", "none", path]);
    await appendInPieces(path, claude);
    await followed.until("the answer", () => followed.out().includes("Done."));
    expect(await followed.interrupt()).toBe(0);
    expect(followed.out()).toBe(run(["render", "--mode", "none", path]));
    expect(followed.out()).toMatch(/✓ done · 9\.4s · 2 turns/);
  });

  it("render -f of a saved session log: ended with its totals once its file was left alone a minute, unfinished before", async () => {
    const saved = readFileSync(sharedPath("fixtures/claude-session/ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"));
    const lastLine = (output: string): string => output.trimEnd().split("\n").at(-1) ?? "";
    const end = async (modifiedAgoMs: number): Promise<string> => {
      const path = tempFile(saved);
      const at = new Date(Date.now() - modifiedAgoMs);
      utimesSync(path, at, at);
      const followed = followWith(["render", "-f", "--mode", "none", "--width", "200", path]);
      await followed.until("the last answer", () => followed.out().includes("architecture details."));
      expect(await followed.interrupt()).toBe(0);
      return lastLine(followed.out());
    };
    const totals = / · 9m 32s · 1 turn · tokens 818 in · 51\.9k out · cache 3\.65M read, 138\.0k write/;
    expect(await end(5 * 60_000)).toMatch(new RegExp(`^■ ended${totals.source}`));
    expect(await end(0)).toMatch(new RegExp(`^◌ the stream ended before the session did \\(no result record\\)${totals.source}`));
    // Not followed, the file is what was written: ended.
    expect(lastLine(run(["render", "--mode", "none", "--width", "200", tempFile(saved)]))).toMatch(new RegExp(`^■ ended${totals.source}`));
  });

  it("summary -f --json: a truncated file is reported and read again from its start; each content gets its summary at Ctrl-C", async () => {
    // summary prints nothing until the end: a broken last line (reported on stderr) says when a content was read.
    const broken = Buffer.from('{"broken\n');
    const first = Buffer.concat([claude, broken]);
    const path = tempFile();
    const followed = followWith(["summary", "-f", "--json", path]);
    await appendInPieces(path, first);
    await followed.until("the first content's broken line", () => followed.err().includes("invalid-json"));
    truncateSync(path, 0);
    await appendInPieces(path, Buffer.concat([codex, broken]));
    await followed.until("the second content's broken line", () => followed.err().split("invalid-json").length === 3);
    expect(await followed.interrupt()).toBe(0);
    const summaries = followed
      .out()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { dialect: string; status: string; finalText: string; issues: { code: string }[] });
    const alone = JSON.parse(run(["summary", "--json", path])) as { status: string; finalText: string };
    expect(summaries.map((s) => [s.dialect, s.status, s.finalText])).toEqual([
      ["claude", "success", "Done."],
      ["codex", alone.status, alone.finalText],
    ]);
    expect(summaries[0]?.issues.map((i) => i.code)).toEqual(["invalid-json"]);
    expect(summaries[1]?.issues.map((i) => i.code)).toEqual(["file-truncated", "invalid-json"]);
    expect(followed.err()).toMatch(new RegExp(`^${path}:0: file-truncated: the file shrank from ${first.length} to \\d+ bytes`, "m"));
  });

  it("convert -f: a replaced file (rotated) ends the old stream and the new file is read from its start", async () => {
    const path = tempFile(codex);
    const followed = followWith(["convert", "-f", "--to", "agentstream", path]);
    // Codex's exec stream has no closing record: its session.completed is written where its stream ends.
    await followed.until("the first file", () => followed.out().includes('"type":"turn.completed"'));
    renameSync(path, `${path}.1`);
    writeFileSync(path, claude);
    await followed.until("both ends", () => followed.out().split('"type":"session.completed"').length === 3);
    expect(await followed.interrupt()).toBe(0);
    expect(followed.out()).toBe(run(["convert", "--to", "agentstream", `${path}.1`]) + run(["convert", "--to", "agentstream", path]));
    expect(followed.err()).toMatch(/:0: file-replaced: /);
  });

  it("render -f: a truncated file closes the old session (its footer) and shows the new text with its own header", async () => {
    const path = tempFile(claude);
    const followed = followWith(["render", "-f", "--mode", "none", path]);
    await followed.until("the answer", () => followed.out().includes("Done."));
    const old = run(["render", "--mode", "none", path]);
    truncateSync(path, 0);
    await appendInPieces(path, codex);
    await followed.until("the new session's text", () => followed.out().length > old.length + 1);
    expect(await followed.interrupt()).toBe(0);
    expect(followed.out()).toBe(`${old}\n${run(["render", "--mode", "none", path])}`);
    expect(followed.err()).toMatch(/:0: file-truncated: /);
  });

  it("takes exactly one file", () => {
    for (const args of [
      ["render", "-f"],
      ["summary", "--follow", "a.jsonl", "b.jsonl"],
      ["convert", "-f", "-"],
    ]) {
      let status = 0;
      let stderr = "";
      try {
        run(args);
      } catch (error) {
        ({ status, stderr } = error as { status: number; stderr: string });
      }
      expect(status).toBe(2);
      expect(stderr).toMatch(/--follow takes exactly one file/);
    }
  });
});
