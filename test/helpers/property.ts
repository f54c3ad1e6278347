/**
 * Property tests: `test.prop([arbitraries], parameters)(name, body)` is one vitest test that runs `body` on the
 * values fast-check generates, named `name (with seed=N)`: the seed that replays a failure (`{ seed: N }` in the
 * parameters). A test's hooks (beforeEach, afterEach) run once around the whole property, as around any test.
 *
 * Why not @fast-check/vitest, whose API this is (the part of it these tests use): its version 0.5 builds its
 * `test` when imported by walking every chain of vitest 4's test API (`test.skip.concurrent.fails…`), seconds
 * of CPU in each test file that imports it, and every file is imported afresh.
 */
import fc from "fast-check";
import { it } from "vitest";

export { fc };

type Arbitraries<Values extends [unknown, ...unknown[]]> = { [K in keyof Values]: fc.Arbitrary<Values[K]> };

/** The seed of a run: the parameters', else fast-check's global one, else a fresh one (as fc.assert picks it). */
function seedOf(parameters: fc.Parameters<unknown>): number {
  return parameters.seed ?? fc.readConfigureGlobal().seed ?? Date.now() ^ (Math.random() * 0x1_0000_0000);
}

function prop<Values extends [unknown, ...unknown[]]>(arbitraries: Arbitraries<Values>, parameters: fc.Parameters<Values> = {}) {
  return (name: string, body: (...values: Values) => unknown, timeout?: number): void => {
    const seed = seedOf(parameters as fc.Parameters<unknown>);
    const property = fc.asyncProperty<Values>(...arbitraries, async (...values: Values) => {
      await body(...values);
    });
    it(`${name} (with seed=${seed})`, () => fc.assert(property, { ...parameters, seed }), timeout);
  };
}

/** `test.prop(...)` as @fast-check/vitest spells it. */
export const test = { prop };
