// test.prop of test/helpers/property.ts: the runs asked for, on the values fast-check gives for the seed.
import { describe, expect, it } from "vitest";
import { fc, test } from "./property.ts";

describe("test.prop", () => {
  const seen: number[] = [];
  test.prop([fc.integer()], { numRuns: 37, seed: 42 })("runs its body once per run", (n) => {
    seen.push(n);
  });

  it("ran the body numRuns times, on the values fc.assert gives for the same seed", () => {
    const expected: number[] = [];
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expected.push(n);
      }),
      { numRuns: 37, seed: 42 },
    );
    expect(seen).toHaveLength(37);
    expect(seen).toEqual(expected);
  });
});
