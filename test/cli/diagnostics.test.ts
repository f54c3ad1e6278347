/**
 * Diagnostics on stderr, as a user gets them from the built binary: every line made safe for a
 * terminal (an input's escape sequences never reach it raw), and each issue code capped per input
 * with the rest counted in one line at the end.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDiagnostics, ISSUES_SHOWN_PER_CODE } from "../../src/cli/diagnostics.ts";
import type { Issue } from "../../src/errors.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const hasBuild = existsSync(bin);

/** A Claude stream whose second record has a type carrying OSC 52 (clipboard write) and ED 2 (clear screen). */
const INIT = '{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[],"cwd":"/"}';
const HOSTILE_TYPE = "x\u001b]52;c;aGk=\u0007\u001b[2J";

/** What a terminal acts on: ESC, BEL and the other C0 controls but LF and TAB, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function agentstream(args: readonly string[], options: { input?: string; cwd?: string } = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    input: options.input ?? "",
    cwd: options.cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** One stream per command's way of naming its input, with a hostile record type in it. */
function hostileStream(type: string): string {
  return `${INIT}\n${JSON.stringify({ type })}\n`;
}

/** The commands that read a stream, each run on `file` (`run` cats it as its agent). */
function commandsOn(file: string, dir: string): [string, string[]][] {
  return [
    ["render", ["render", file]],
    ["convert", ["convert", file]],
    ["summary", ["summary", file]],
    ["validate", ["validate", file]],
    ["html", ["html", file, "-o", join(dir, "page.html")]],
    ["run", ["run", "--", "cat", file]],
    ["publish", ["publish", "nats://127.0.0.1:9", "--flush-timeout", "1ms", "--spool", join(dir, "spool"), file]],
  ];
}

describe.skipIf(!hasBuild)("diagnostics of the built binary", () => {
  it("no command prints an input's escape sequence raw on stderr (OSC 52, ED 2 in a record type)", () => {
    const dir = tempDir("diagnostics");
    const file = join(dir, "hostile.ndjson");
    writeFileSync(file, hostileStream(HOSTILE_TYPE));
    for (const [name, args] of commandsOn(file, dir)) {
      const { stderr } = agentstream(args, { cwd: dir });
      expect(stderr, name).toMatch(/unknown-record: record type "x␛\]52;c;aGk=␇␛\[2J"/);
      expect(RAW_CONTROL.test(stderr), `${name}: ${JSON.stringify(stderr)}`).toBe(false);
    }
  }, 120_000);

  it.skipIf(!hasShared)(
    "the corpus's terminal escape payloads reach stderr neutralised",
    () => {
      const corpus = JSON.parse(readFileSync(sharedPath("corpus/terminal/escape-payloads.json"), "utf8")) as {
        payloads: { id: string; payload: string }[];
      };
      const dir = tempDir("diagnostics");
      const file = join(dir, "payloads.ndjson");
      writeFileSync(file, `${INIT}\n${corpus.payloads.map((p) => JSON.stringify({ type: `${p.id}:${p.payload}` })).join("\n")}\n`);
      for (const [name, args] of commandsOn(file, dir)) {
        const { stderr } = agentstream(args, { cwd: dir });
        expect(stderr, name).toContain("unknown-record");
        expect(RAW_CONTROL.test(stderr), `${name}: ${JSON.stringify(stderr)}`).toBe(false);
        // Each line is one diagnostic: a payload's newline or CR cannot start a line of its own.
        for (const line of stderr.split("\n").filter((l) => l !== ""))
          expect(line, name).toMatch(/^(payloads\.ndjson|cat|.*\/payloads\.ndjson|agentstream|valid|invalid)/);
      }
    },
    120_000,
  );

  it("a --strict stop and a file name quoting escapes are sanitised too", () => {
    const dir = tempDir("diagnostics");
    const file = join(dir, "hostile.ndjson");
    writeFileSync(file, hostileStream(HOSTILE_TYPE));
    const strict = agentstream(["convert", "--strict", file]);
    expect(strict.status).toBe(1);
    expect(RAW_CONTROL.test(strict.stderr)).toBe(false);
    // The stop names the issue itself, not a decoder failure wrapped around it.
    expect(strict.stderr).toMatch(/^agentstream convert: unknown-record: record type "x␛\]52;c;aGk=␇␛\[2J" is not understood \(line 2\)$/m);
    expect(strict.stderr).not.toContain("decoder failed");
    const command = agentstream(["x\u001b[2Jy"]);
    expect(command.status).toBe(2);
    expect(command.stderr).toContain('unknown command "x␛[2Jy"');
    const missing = agentstream(["summary", join(dir, "no\u001b]0;title\u0007such")]);
    expect(missing.status).toBe(3);
    expect(missing.stderr).toMatch(/no␛\]0;title␇such/);
    expect(RAW_CONTROL.test(missing.stderr)).toBe(false);
  });

  it("10,000 unknown records give the first issues of the code and one counted line, in every command", () => {
    const dir = tempDir("diagnostics");
    const file = join(dir, "many.ndjson");
    // 160 kB: more than one read of every source (64 KiB pipes and file reads), and a count with a thousands separator.
    const records = 10_000;
    writeFileSync(file, `${INIT}\n${'{"type":"nope"}\n'.repeat(records)}`);
    for (const [name, args] of commandsOn(file, dir)) {
      const { stderr } = agentstream(args, { cwd: dir });
      const lines = stderr.split("\n").filter((l) => l !== "");
      const unknown = lines.filter((l) => l.includes(": unknown-record: "));
      expect(unknown, name).toHaveLength(ISSUES_SHOWN_PER_CODE);
      expect(lines, name).toContainEqual(expect.stringMatching(/: … and 9,990 more unknown-record issues \(10 shown\)$/));
      expect(lines.length, `${name}: ${lines.slice(0, 30).join("\n")}`).toBeLessThan(30);
    }
  }, 180_000);
});

/** A stderr that keeps what it was given. */
function capture(): { output: { write(text: string): void; isTTY: false }; text(): string } {
  let text = "";
  return {
    output: {
      write(chunk) {
        text += chunk;
      },
      isTTY: false,
    },
    text: () => text,
  };
}

describe.skipIf(!hasBuild)("large deltas on stderr, from the built binary", () => {
  it("every command that reads a stream prints one large-deltas warning for a stream of large deltas", () => {
    const dir = tempDir("diagnostics");
    const file = join(dir, "large.ndjson");
    const lines: string[] = [];
    for (let i = 0; i < 5; i++) {
      const messageId = `m${i}`;
      const text = `${i} ${"y".repeat(300)}`;
      const base = { v: 1, messageId, role: "assistant", kind: "text" };
      lines.push(JSON.stringify({ ...base, seq: lines.length, type: "message.started" }));
      lines.push(JSON.stringify({ ...base, seq: lines.length, type: "message.delta", text, position: 0 }));
      lines.push(JSON.stringify({ ...base, seq: lines.length, type: "message.completed", text }));
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    for (const [name, args] of commandsOn(file, dir)) {
      const { stderr } = agentstream(args, { cwd: dir });
      const warnings = stderr.split("\n").filter((l) => l.includes(": large-deltas: "));
      expect(warnings, `${name}: ${stderr}`).toEqual([expect.stringMatching(/:8: large-deltas: 3 message deltas over 200 characters/)]);
    }
  }, 120_000);
});

describe("createDiagnostics", () => {
  const issue = (code: Issue["code"], line: number): Issue => ({ code, severity: "warning", message: `m${line}`, line });

  it("caps each code per input, counts the rest, and says nothing more when under the cap", () => {
    const stderr = capture();
    const diagnostics = createDiagnostics(stderr.output, 2);
    for (let i = 1; i <= 5; i++) diagnostics.issue(issue("unknown-record", i), "a");
    diagnostics.issue(issue("invalid-json", 9), "a");
    diagnostics.issue(issue("unknown-record", 1), "b");
    diagnostics.summarize();
    expect(
      stderr
        .text()
        .split("\n")
        .filter((l) => l !== ""),
    ).toEqual([
      "a:1: unknown-record: m1",
      "a:2: unknown-record: m2",
      "a:9: invalid-json: m9",
      "b:1: unknown-record: m1",
      "a: … and 3 more unknown-record issues (2 shown)",
    ]);
  });

  it("says a line as one line with no control character", () => {
    const stderr = capture();
    const diagnostics = createDiagnostics(stderr.output);
    diagnostics.say("a\u001b[2Jb\nc\rd");
    expect(stderr.text()).toBe("a␛[2Jb⏎c␍d\n");
  });
});
