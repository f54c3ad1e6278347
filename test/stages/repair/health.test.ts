import { describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { readAll } from "../../helpers/read.ts";
import { completed, delta, line, see, started } from "../../helpers/streams.ts";

/** A stream of `n` messages of `chars`-long single deltas, each its own message (nothing to repair). */
function largeDeltas(n: number, chars = 250): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `m${i}`;
    const text = `${String(i).padStart(4, "0")} ${"y".repeat(chars - 5)}`;
    lines.push(started(id), delta(id, text), completed(id, text));
  }
  return `${lines.join("\n")}\n`;
}

describe("health report", () => {
  it("counts parse errors, unknown records, repairs, large deltas and protocol violations in summary --json", () => {
    const big = "x".repeat(250);
    const lines = [
      started("m"),
      delta("m", `${big} a`),
      delta("m", `${big} a`),
      delta("orphan", "text for a message that never started"),
      completed("m", `${big} a`),
    ];
    const { summary } = readAll([`${lines.join("\n")}\n{"broken":\n{"v":1,"seq":99,"type":"some.future.event"}\n`], {
      dialect: "agentstream",
    });
    expect(summary.health.parseErrors).toBe(1);
    expect(summary.health.unknownRecords).toBe(1);
    expect(summary.health.repairs).toBeGreaterThanOrEqual(2);
    expect(summary.health.largeDeltas).toBe(2);
    expect(summary.health.protocolViolations).toBe(1);
    expect(summary.repairs["duplicate-delta"]).toBe(1);
    expect(summary.repairs["orphan-delta"]).toBe(1);
  });

  it("warns when parse errors are more than half of the records", () => {
    const { issues } = readAll(['{"a":\n{"b":\n{"ok":1}\n'], { dialect: "json" });
    expect(issues.map((i) => i.code)).toContain("parse-error-rate");
    const { issues: fine } = readAll(['{"a":1}\n{"b":\n{"ok":1}\n'], { dialect: "json" });
    expect(fine.map((i) => i.code)).not.toContain("parse-error-rate");
  });

  it("every repair is an event in the stream", () => {
    const s = see([started("m"), delta("m", "Hello"), delta("m", "Hello World, again and again")]);
    expect(s.repairs.length).toBe(1);
  });

  it("says repeated large deltas once per stream: a large-deltas warning at the third, none for two", () => {
    const three = readAll([largeDeltas(5)], { dialect: "agentstream" });
    expect(three.summary.health.largeDeltas).toBe(5);
    expect(three.issues.filter((i) => i.code === "large-deltas")).toEqual([
      expect.objectContaining({ severity: "warning", line: 8, message: expect.stringMatching(/^3 message deltas over 200 characters/) }),
    ]);
    const two = readAll([largeDeltas(2)], { dialect: "agentstream" });
    expect(two.summary.health.largeDeltas).toBe(2);
    expect(two.issues.map((i) => i.code)).not.toContain("large-deltas");
    // Exactly 200 characters is not large (the seed: "exceeding 200").
    expect(readAll([largeDeltas(4, 200)], { dialect: "agentstream" }).issues.map((i) => i.code)).not.toContain("large-deltas");
  });

  it("tool input sent whole (large tool.input.delta) is counted, not warned about", () => {
    const input = JSON.stringify({ content: "z".repeat(400) });
    const lines = [0, 1, 2, 3].flatMap((i) => [
      line("tool.started", { toolCallId: `t${i}`, name: "Write" }),
      line("tool.input.delta", { toolCallId: `t${i}`, text: input }),
      line("tool.completed", { toolCallId: `t${i}`, name: "Write", isError: false }),
    ]);
    const { summary, issues } = readAll([`${lines.join("\n")}\n`], { dialect: "agentstream" });
    expect(summary.health.largeDeltas).toBe(4);
    expect(issues.map((i) => i.code)).not.toContain("large-deltas");
  });

  it.each(["render", "convert", "summary", "validate"])("%s prints the large-deltas warning on stderr once", async (command) => {
    const io = fakeIo({ stdin: largeDeltas(6) });
    await run([command], io);
    const warnings = io
      .err()
      .split("\n")
      .filter((l) => l.includes(": large-deltas: "));
    expect(warnings).toEqual([expect.stringMatching(/^<stdin>:8: large-deltas: 3 message deltas over 200 characters: .*snapshots/)]);
  });
});
