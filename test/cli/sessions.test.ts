// `cat claude.jsonl codex.jsonl gemini.jsonl | agentstream summary|render`: one summary, one header and footer per session.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

const claude = "claude/archistrator_success_with_tools.jsonl";
const codex = "codex/agentcmd_exec_json_stream-output-1.jsonl";
const gemini = "gemini/agentcmd_say_hello.jsonl";

function concatenated(paths: readonly string[]): Uint8Array {
  return Buffer.concat(paths.map((p) => readFileSync(sharedPath("fixtures", p))));
}

async function summaryOf(paths: readonly string[]): Promise<Record<string, unknown>> {
  const io = fakeIo();
  expect(await run(["summary", "--json", sharedPath("fixtures", ...paths)], io)).toBe(0);
  return JSON.parse(io.out()) as Record<string, unknown>;
}

describe.skipIf(!hasShared)("several sessions in one stream", () => {
  it("summary --json prints one summary per session, one per line, each as its capture alone gives it", async () => {
    const paths = [claude, codex, gemini];
    const io = fakeIo({ stdin: concatenated(paths) });
    expect(await run(["summary", "--json"], io)).toBe(0);
    const lines = io.out().trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const summaries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const alone = await Promise.all(paths.map((p) => summaryOf([p])));
    expect(summaries.map((s) => s.dialect)).toEqual(["claude", "codex", "gemini"]);
    expect(summaries).toEqual(alone);
  });

  it("summary --json with one session prints the single pretty object, as before", async () => {
    const io = fakeIo({ stdin: concatenated([codex]) });
    expect(await run(["summary", "--json"], io)).toBe(0);
    expect(io.out()).toMatch(/^\{\n {2}"dialect": "codex",/);
  });

  it("summary (text) prints one block per session", async () => {
    const io = fakeIo({ stdin: concatenated([gemini, claude]) });
    expect(await run(["summary"], io)).toBe(0);
    expect(io.out().match(/^dialect {6}\S+$/gm)).toEqual(["dialect      gemini", "dialect      claude"]);
  });

  it("render shows each session with its own header and footer, and no ghost footer", async () => {
    const io = fakeIo({ stdin: concatenated([claude, codex, gemini]) });
    expect(await run(["render", "--mode", "none"], io)).toBe(0);
    const out = io.out();
    expect(out.match(/^◆ .*$/gm)).toEqual([
      "◆ claude-code 2.1.220 · claude-sonnet-5 · /scrubbed",
      "◆ codex",
      "◆ gemini-cli · gemini-2.5-pro",
    ]);
    expect(out.match(/^[✓✗◼◌] .*$/gm)).toHaveLength(3);
    // Each footer ends its session: a blank line, then the next header.
    expect(out).toMatch(/cache 63\.6k read, 5\.4k write\n\n◆ codex\n/);
    expect(out.trimEnd().split("\n").at(-1)).toMatch(/^✓ done · 2\.2s/);
    expect(io.err()).toBe("");
  });

  it("a session cut short is said to have ended where the next one starts", async () => {
    const io = fakeIo({
      stdin: readFileSync(join(import.meta.dirname, "../fixtures/sessions/claude-open-tool-then-second-session.ndjson")),
    });
    expect(await run(["render", "--mode", "none"], io)).toBe(0);
    expect(io.out()).toMatch(/◌ the stream ended before the session did \(no result record\)\n\n◆ claude-code/);
  });
});
