import { describe, expect, it } from "vitest";
import { readAll } from "../../helpers/read.ts";
import { completed, delta, see, started } from "../../helpers/streams.ts";

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
});
