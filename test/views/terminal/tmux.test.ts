/**
 * End to end, as a person sees it: the built CLI (dist/cli/bin.js) runs inside tmux (a real pty,
 * so stdout is a terminal and `render` picks mode full), and we read the pane with capture-pane.
 * Then the same with every escape payload of the terminal corpus in agent and tool text: the pane's
 * title, tmux's paste buffers (clipboard, with set-clipboard on), its modes (alternate screen,
 * cursor, mouse, keypad) are untouched, and nothing was typed into the terminal's input.
 * tmux comes from Debian (scripts/install-test-deps.sh); without it, or without `npm run build`,
 * this file skips with one line.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hasShared, repoRoot, sharedPath } from "../../helpers/shared.ts";
import { tempDir } from "../../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
const hasBuild = existsSync(bin);
if (!hasTmux)
  console.warn("[agentstream tests] tmux is not installed (bash scripts/install-test-deps.sh): the tmux end-to-end test is skipped");
else if (!hasBuild) console.warn("[agentstream tests] dist/cli/bin.js is missing (npm run build): the tmux end-to-end test is skipped");

const socket = `agentstream-test-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
const work = tempDir("tmux");

afterAll(() => {
  if (hasTmux) spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
});

/** Runs `agentstream render <args>` in a fresh tmux window `width` wide; resolves when it has finished. */
async function runInPane(
  name: string,
  args: string[],
  width = 100,
): Promise<{ target: string; plain: string; styled: string; input: number }> {
  const marker = `__${name}_DONE__`;
  // After the CLI: read for a second whatever the terminal may have "typed" (answers to queries), and report how much.
  const script = `node ${JSON.stringify(bin)} render ${args.map((a) => JSON.stringify(a)).join(" ")}; read -r -s -t 1 -n 200 typed; printf '\\n${marker} input=%s\\n' "\${#typed}"; sleep 600`;
  if (spawnSync("tmux", ["-L", socket, "has-session", "-t", "e2e"], { stdio: "ignore" }).status !== 0) {
    tmux("new-session", "-d", "-s", "e2e", "-x", String(width), "-y", "50", "-n", "idle", "sleep 600");
    tmux("set-option", "-g", "set-clipboard", "on");
    tmux("set-option", "-g", "history-limit", "10000");
  }
  tmux("new-window", "-d", "-t", "e2e", "-n", name, "bash", "--norc", "--noprofile", "-c", script);
  tmux("resize-window", "-t", `e2e:${name}`, "-x", String(width), "-y", "50");
  const target = `e2e:${name}`;
  const deadline = Date.now() + 20_000;
  let plain = "";
  while (Date.now() < deadline) {
    plain = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", target);
    if (plain.includes(marker)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const styled = tmux("capture-pane", "-p", "-e", "-S", "-", "-t", target);
  const input = Number(/input=(\d+)/.exec(plain)?.[1] ?? "-1");
  return { target, plain, styled, input };
}

const flags = (target: string): string =>
  tmux(
    "display-message",
    "-p",
    "-t",
    target,
    "#{pane_title}|#{alternate_on}|#{cursor_flag}|#{mouse_any_flag}|#{keypad_flag}|#{keypad_cursor_flag}|#{insert_flag}|#{wrap_flag}",
  ).trim();

describe.skipIf(!hasTmux || !hasBuild)("the built CLI in tmux", () => {
  it("npm run demo's session reads as a person wants: colours, tool calls, output, the answer and the footer", async () => {
    const { plain, styled, target } = await runInPane("demo", [join(repoRoot, "examples/claude-code-session.ndjson")]);
    expect(plain).toContain("◆ claude-code 2.1.220 · claude-sonnet-4-5-20250929 · /home/dev/todo-app");
    expect(plain).toContain("∴ The failing test is in tests/date.test.ts;");
    expect(plain).toContain("→ Bash  npx vitest run tests/date.test.ts");
    expect(plain).toContain("│ AssertionError: expected 'in 1 days' to be 'tomorrow'");
    expect(plain).toContain("→ Edit  src/date.ts");
    expect(plain.replace(/\n {2}(?=\S)/g, " ")).toContain(
      '● Fixed: `formatDue` now says "tomorrow" for a one-day gap instead of "in 1 days". All 7 date tests pass.',
    );
    // The agent's own diagnostics (stop reasons, token estimates, timing) are not lines of the view.
    expect(plain).not.toMatch(/stop_reason|message_delta|thinking_tokens|turn_timing|messageId=/);
    // Prose is wrapped to the pane's width (100) at a word boundary, under its marker, by us rather than the terminal.
    expect(plain).toContain("All 7 date tests\n  pass.");
    expect(plain).toMatch(/✓ done · 18\.7s · 4 turns · tokens 33 in · 399 out · cache 64\.0k read, 2\.9k write · \$0\.0421/);
    expect(plain.match(/Fixed: `formatDue`/g)).toHaveLength(1);
    // Mode full in a terminal: styled (tmux re-encodes our SGR when it captures with -e).
    expect(styled).toMatch(/\x1b\[[0-9;]*32m/); // green (the answer, the footer)
    expect(styled).toMatch(/\x1b\[[0-9;]*36m/); // cyan (reasoning)
    expect(flags(target)).toMatch(/\|0\|1\|0\|0\|0\|0\|1$/);
  });

  it.skipIf(!hasShared)("escape payloads in agent and tool text change nothing in the terminal", async () => {
    const payloads = (
      JSON.parse(readFileSync(sharedPath("corpus/terminal/escape-payloads.json"), "utf8")) as {
        payloads: { id: string; payload: string }[];
      }
    ).payloads;
    const events: object[] = [{ type: "session.started", sessionId: "s", agent: "probe" }];
    for (const [i, p] of payloads.entries()) {
      events.push({
        type: "message.completed",
        sessionId: "s",
        messageId: `m${i}`,
        role: "assistant",
        kind: "text",
        text: `MSG${i}< ${p.payload} >END${i}`,
      });
      events.push({ type: "tool.started", sessionId: "s", toolCallId: `t${i}`, name: `tool${i}`, input: { command: `cmd ${p.payload}` } });
      events.push({
        type: "tool.completed",
        sessionId: "s",
        toolCallId: `t${i}`,
        output: `OUT${i}< ${p.payload} >END${i}`,
        isError: false,
      });
      events.push({ type: "text", text: `TXT${i}< ${p.payload} >END${i}`, position: "interleaved" });
    }
    events.push({ type: "session.completed", sessionId: "s", status: "success" });
    const file = join(work, "payloads.ndjson");
    writeFileSync(file, `${events.map((e, seq) => JSON.stringify({ v: 1, seq, ...e })).join("\n")}\n`);
    const before = flags("e2e:idle");
    const { plain, target, input } = await runInPane("payloads", ["--from", "agentstream", "--full", file], 200);
    expect(flags(target).split("|").slice(1)).toEqual(before.split("|").slice(1));
    expect(flags(target).split("|")[0]).toBe(before.split("|")[0]); // the title
    expect(tmux("list-buffers")).toBe(""); // no OSC 52 reached tmux's clipboard
    expect(input).toBe(0); // nothing answered into the terminal's input
    for (let i = 0; i < payloads.length; i++) {
      for (const place of ["MSG", "OUT", "TXT"]) expect(plain, `${payloads[i]?.id} in ${place}`).toContain(`${place}${i}<`);
      expect(plain.match(new RegExp(`>END${i}\\b`, "g"))?.length ?? 0, payloads[i]?.id).toBeGreaterThanOrEqual(3);
    }
    expect(plain).toContain("✓ done");
  });
});
