import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { outputFormats } from "../../src/output-formats.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";
import { positives, streamWith, streamingCases } from "../stages/redact/_corpus.ts";

/** Every fake secret of the corpus, each in every field kind, in one agentstream stream per secret. */
const streams = positives.map((p) => ({ p, input: streamWith(p) }));

/** A real Claude capture with partial messages (text deltas "P", "ONG"), its answer replaced by a secret split across the two deltas. */
function claudeWithSplitSecret(): { input: string; token: string; rule: string } {
  const s = streamingCases[1] as (typeof streamingCases)[number];
  const [first, second] = s.parts as [string, string];
  const deltas = [s.before + first, second + s.after];
  const lines = readFileSync(sharedPath("fixtures/claude/meridian_streaming_turn_partial.ndjson"), "utf8").trimEnd().split("\n");
  const input = lines
    .map((line) => {
      const record = JSON.parse(line);
      if (record.event?.delta?.type === "text_delta") record.event.delta.text = deltas.shift();
      if (record.type === "assistant") record.message.content[0].text = s.text;
      if (record.type === "result") record.result = s.text;
      return JSON.stringify(record);
    })
    .join("\n");
  return { input: `${input}\n`, token: s.token, rule: s.rule };
}

describe.skipIf(!hasShared)("secrets are never shown or written by default", () => {
  it("the Claude capture really streams the secret in two deltas", () => {
    const { input, token } = claudeWithSplitSecret();
    const deltas = input
      .split("\n")
      .filter((line) => line.includes('"text_delta"'))
      .map((line) => JSON.parse(line).event.delta.text as string);
    expect(deltas).toHaveLength(2);
    expect(deltas.some((d) => d.includes(token))).toBe(false);
    expect(deltas.join("").includes(token)).toBe(true);
  });

  it.each(["full", "none"])("render --mode %s redacts a secret split across Claude text deltas", async (mode) => {
    const { input, token, rule } = claudeWithSplitSecret();
    const io = fakeIo({ stdin: input });
    expect(await run(["render", "--mode", mode, "--width", "100"], io)).toBe(0);
    expect(io.out()).not.toContain(token);
    expect(io.out()).toContain(`[REDACTED:${rule}]`);
    expect(io.err()).toMatch(/^<stdin>: redacted \d+ secrets? \(anthropic-key \d+\); --no-redact shows them\n$/m);
  });

  it("render --debug shows raw records redacted too", async () => {
    const { input, token } = claudeWithSplitSecret();
    const io = fakeIo({ stdin: input });
    expect(await run(["render", "--debug"], io)).toBe(0);
    expect(io.out()).not.toContain(token);
    expect(io.out()).not.toContain(token.slice(0, 24));
  });

  it.each(outputFormats.map((f) => f.name))("convert --to %s writes no secret", async (format) => {
    for (const { p, input } of streams) {
      const io = fakeIo({ stdin: input });
      await run(["convert", "--to", format, "--from", "agentstream", "--include-raw", "-q"], io);
      expect(io.out(), `${p.rule}: ${p.about}`).not.toContain(p.token);
      expect(io.out()).toContain("[REDACTED");
    }
    const { input, token } = claudeWithSplitSecret();
    const io = fakeIo({ stdin: input });
    await run(["convert", "--to", format, "-q"], io);
    expect(io.out()).not.toContain(token);
  });

  it("render writes no secret from any field", async () => {
    for (const { p, input } of streams) {
      const io = fakeIo({ stdin: input });
      await run(["render", "--full", "--mode", "none", "--from", "agentstream"], io);
      expect(io.out(), `${p.rule}: ${p.about}`).not.toContain(p.token);
      expect(io.err(), "diagnostics quote no secret").not.toContain(p.token);
    }
  });

  it("summary --json counts redactions per kind, and its text shows them", async () => {
    const { input, rule } = claudeWithSplitSecret();
    const json = fakeIo({ stdin: input });
    expect(await run(["summary", "--json"], json)).toBe(0);
    const summary = JSON.parse(json.out());
    // The answer counts once for its message (deltas and completed text) and once for the final text.
    expect(summary.redactions).toEqual({ [rule]: 2 });
    expect(summary.finalText).toContain(`[REDACTED:${rule}]`);
    const text = fakeIo({ stdin: input });
    expect(await run(["summary"], text)).toBe(0);
    expect(text.out()).toMatch(/^redactions\s+2 secrets \(anthropic-key 2\)$/m);
  });

  it("summary --json has an empty redactions object when nothing was secret", async () => {
    const io = fakeIo({ stdin: readFileSync(sharedPath("fixtures/claude/meridian_streaming_turn_partial.ndjson")) });
    expect(await run(["summary", "--json"], io)).toBe(0);
    expect(JSON.parse(io.out()).redactions).toEqual({});
    expect(io.err()).toBe("");
  });

  it("--no-redact shows the secrets and says so on stderr, once", async () => {
    const { input, token } = claudeWithSplitSecret();
    for (const argv of [["render", "--mode", "none", "--width", "400"], ["convert"], ["summary", "--json"]]) {
      const io = fakeIo({ stdin: input });
      expect(await run([...argv, "--no-redact"], io)).toBe(0);
      expect(io.out(), argv.join(" ")).toContain(token);
      expect(io.err()).toBe("agentstream: --no-redact: secrets in the input (API keys, tokens, passwords) will be shown as they are\n");
    }
    const summary = fakeIo({ stdin: input });
    await run(["summary", "--json", "--no-redact"], summary);
    expect(JSON.parse(summary.out()).redactions).toEqual({});
  });

  it("an invalid line that quotes a secret is reported without it", async () => {
    const p = positives[0] as (typeof positives)[number];
    const io = fakeIo({ stdin: `{"type":"system","subtype":"init","session_id":"s"}\n{"broken": "${p.token}\n` });
    await run(["convert", "--from", "claude"], io);
    expect(io.err()).toMatch(/invalid-json/);
    expect(io.err()).not.toContain(p.token);
  });
});
