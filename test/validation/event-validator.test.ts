/**
 * The event schema compiled ahead of time (src/validation/_event-validator.generated.ts): it is the schema's, and
 * checks as the schema compiled at run time does, LosslessIntegers included.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventValidatorSource, generatedPath } from "../../scripts/generate-event-validator.mjs";
import { makeEvent } from "../../src/emitter.ts";
import { LosslessInteger } from "../../src/model/lossless-integer.ts";
import { agentstreamSchema } from "../../src/validation/agent-event-schema.ts";
import { compileSchema } from "../../src/validation/ajv.ts";
import { schemaIssues, validateEvent } from "../../src/validation/validate-event.ts";

describe("the event validator compiled ahead of time", () => {
  it("is what the generator writes from today's event schema (npm run generate:validator after a schema change)", () => {
    expect(readFileSync(generatedPath, "utf8") === eventValidatorSource(agentstreamSchema)).toBe(true);
  });

  it("finds what the schema compiled at run time finds, issue for issue", () => {
    const runtime = compileSchema(agentstreamSchema);
    const values: unknown[] = [
      makeEvent("turn.started", { seq: 1, turnId: "t1" }),
      { ...makeEvent("turn.started", { seq: 1, turnId: "t1" }), extra: true },
      { v: 1, seq: -1, type: "message.completed", role: "robot", text: 3 },
      { v: 1, seq: 0, type: "no.such.type" },
      "not an event",
    ];
    for (const value of values) {
      const expected = runtime(value) ? [] : schemaIssues(runtime.errors ?? []);
      expect(validateEvent(value)).toEqual(expected);
    }
  });

  it("checks a LosslessInteger (an integer beyond 2^53) as the integer it is", () => {
    const big = new LosslessInteger("9007199254740993");
    expect(validateEvent({ ...makeEvent("turn.started", { seq: 1, turnId: "t1" }), seq: big })).toEqual([]);
    // Where the schema wants a string, it is still a number.
    const issues = validateEvent({ ...makeEvent("turn.started", { seq: 1, turnId: "t1" }), turnId: big });
    expect(issues.map((issue) => issue.message)).toContain("turnId must be string");
  });
});
