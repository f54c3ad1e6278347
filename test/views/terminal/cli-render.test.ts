/**
 * `agentstream render` in-process (run(argv, fakeIo)): options, modes, batching of writes, and the
 * GitHub Actions guard.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.ts";
import type { CliIo } from "../../../src/cli/io.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { repoRoot } from "../../helpers/shared.ts";

const example = join(repoRoot, "examples/claude-code-session.ndjson");

/** A fake io whose stdout counts its writes. */
function counting(options: Parameters<typeof fakeIo>[0] = {}): CliIo & { out(): string; writes(): number } {
  const io = fakeIo(options);
  let out = "";
  let writes = 0;
  return {
    ...io,
    stdout: {
      write: (t: string) => {
        out += t;
        writes++;
      },
      isTTY: options.stdoutTTY ?? false,
      columns: 80,
    },
    out: () => out,
    writes: () => writes,
  };
}

describe("agentstream render", () => {
  it("renders the example with no escape sequence when stdout is a pipe", async () => {
    const io = fakeIo();
    expect(await run(["render", example], io)).toBe(0);
    expect(io.out()).not.toContain("\x1b");
    expect(io.out()).toContain("→ Bash  npx vitest run tests/date.test.ts");
    expect(io.out()).toMatch(/✓ done · 18\.7s · 4 turns/);
  });

  it("shows a run of deltas that came in one chunk as one piece of text, and the same text as when they came one by one", async () => {
    const lines = readFileSync(example, "utf8").split(/(?<=\n)/);
    const together = fakeIo({ stdoutTTY: true, stdin: lines.join("") });
    await run(["render"], together);
    const oneByOne = {
      ...fakeIo({ stdoutTTY: true }),
      stdin: Object.assign(
        (async function* () {
          for (const line of lines) yield new TextEncoder().encode(line);
        })(),
        { isTTY: false },
      ),
    };
    await run(["render"], oneByOne);
    const plain = (text: string) => text.replace(/\x1b\[[0-9;:]*m/g, "");
    expect(plain(together.out())).toBe(plain(oneByOne.out()));
    // Mode full writes a styled piece per event (each write closes its styles): joined deltas are fewer pieces.
    const styles = (text: string) => text.match(/\x1b\[[0-9;:]*m/g)?.length ?? 0;
    expect(styles(together.out())).toBeLessThan(styles(oneByOne.out()));
  });

  it("FORCE_COLOR on a pipe: basic mode (colour, no dim or italic); a terminal: full", async () => {
    const basic = fakeIo({ env: { FORCE_COLOR: "1" } });
    await run(["render", example], basic);
    expect(basic.out()).toMatch(/\x1b\[1;32m/);
    expect(basic.out()).not.toMatch(/\x1b\[2;36m/);
    const full = fakeIo({ stdoutTTY: true });
    await run(["render", example], full);
    expect(full.out()).toMatch(/\x1b\[2;36m/);
  });

  it("-q, -v, --full and --debug", async () => {
    const quiet = fakeIo();
    await run(["render", "-q", example], quiet);
    expect(quiet.out()).not.toContain("AssertionError");
    const verbose = fakeIo();
    await run(["render", "-v", example], verbose);
    expect(verbose.out()).toContain("# Run the failing date test");
    const debug = fakeIo();
    await run(["render", "--debug", example], debug);
    const lines = debug.out().trim().split("\n");
    expect(lines[0]).toMatch(/^#0 session\.started \{"v":1,"seq":0,"type":"session\.started"/);
    expect(lines[0]).toContain('"raw":{'); // the agent's own record, for debugging a dialect
  });

  it("--width must be a whole number of at least 20", async () => {
    const io = fakeIo();
    expect(await run(["render", "--width", "10", example], io)).toBe(2);
    expect(io.err()).toMatch(/--width takes a whole number of columns, at least 20/);
  });

  it("in a GitHub Actions job, workflow commands in agent text are suspended", async () => {
    const io = fakeIo({
      stdin: '{"type":"text","v":1,"seq":0,"text":"::add-mask::secret","position":"preamble"}\n',
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(await run(["render", "--from", "agentstream"], io)).toBe(0);
    const lines = io.out().trim().split("\n");
    const token = /^::stop-commands::(agentstream-[0-9a-f-]+)$/.exec(lines[0] as string)?.[1];
    expect(token).toBeDefined();
    expect(lines.at(-1)).toBe(`::${token}::`);
    expect(io.out()).toContain("::add-mask::secret");
  });

  it("100k tiny deltas: a write per input chunk, not per delta, in mode full", async () => {
    const n = 100_000;
    const lines = ['{"v":1,"seq":0,"type":"message.started","messageId":"m","role":"assistant","kind":"text"}'];
    for (let i = 0; i < n; i++)
      lines.push(`{"v":1,"seq":${i + 1},"type":"message.delta","messageId":"m","text":"${i % 80 === 79 ? "y\\n" : "y"}","position":${i}}`);
    lines.push(`{"v":1,"seq":${n + 1},"type":"message.completed","messageId":"m","role":"assistant","kind":"text","text":""}`);
    const io = counting({ stdin: `${lines.join("\n")}\n`, stdoutTTY: true });
    expect(await run(["render", "--from", "agentstream", "--no-repair"], io)).toBe(0);
    expect(io.writes()).toBeLessThan(10);
    expect(
      io
        .out()
        .replace(/\x1b\[[0-9;]*m/g, "")
        .match(/y/g),
    ).toHaveLength(n);
  });
});

describe("render: a Witness Forge stream by the spec's display rules", () => {
  const stream = [
    '{"type": "analysis", "content": "Thinking about it", "brain": "path1"}',
    '{"type": "final", "content": "cut short',
    "This is not JSON",
    '{"type": "plan", "content": "1. read 2. answer"}',
    '{"type": "final", "content": "The answer.", "brain": "path2"}',
  ].join("\n");

  it("a line that is not valid JSON is shown as it is; a type the spec does not list, as plain text", async () => {
    const io = fakeIo({ stdin: `${stream}\n` });
    expect(await run(["render", "--from", "witness"], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('\n{"type": "final", "content": "cut short\n');
    expect(out).toContain("\nThis is not JSON\n");
    expect(out).toContain("\n1. read 2. answer\n");
    expect(out.indexOf("cut short")).toBeLessThan(out.indexOf("1. read"));
    expect(out.indexOf("1. read")).toBeLessThan(out.indexOf("The answer."));
    // The new type is allowed by the spec: nothing on stderr about it at the default verbosity.
    expect(io.err()).not.toContain("plan");
    expect(out).not.toContain("unknown record");
  });

  it("-v adds the record under its text", async () => {
    const io = fakeIo({ stdin: `${stream}\n` });
    expect(await run(["render", "--from", "witness", "-v"], io)).toBe(0);
    expect(io.out()).toMatch(/\n1\. read 2\. answer\n[\s\S]*\? unknown record: unknown witness event type "plan"/);
  });
});
