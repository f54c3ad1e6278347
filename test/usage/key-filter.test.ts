/** The filter of request keys each scan-cache frame keeps (key-filter.ts). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyFilter, StoredKeyFilter } from "../../src/usage/key-filter.ts";

/** A request key's two hashes: whole numbers below 2^53, as cyrb53 makes them. */
const hash = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

describe("key filter", () => {
  it("never says no to a key it was given, and keeps saying so from its stored words", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hash, hash), { maxLength: 300 }), (keys) => {
        const filter = new KeyFilter(keys.length);
        for (const [hi, lo] of keys) filter.add(hi, lo);
        const stored = new KeyFilter(keys.length, new Uint32Array(filter.words));
        for (const [hi, lo] of keys) expect(stored.mayHold(hi, lo)).toBe(true);
      }),
    );
  });

  it("says no to almost every key it was not given (32 bits a key: under 1 % say yes)", () => {
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed * 2 ** 21 + (Math.imul(seed, 2_654_435_761) >>> 11);
    };
    const filter = new KeyFilter(20_000);
    for (let i = 0; i < 20_000; i++) filter.add(next(), next());
    let yes = 0;
    for (let i = 0; i < 100_000; i++) if (filter.mayHold(next(), next())) yes++;
    expect(yes / 100_000).toBeLessThan(0.01);
    expect(filter.words.length * 32).toBeGreaterThanOrEqual(20_000 * 32);
  });

  it("answers from its stored bytes as it did in memory, reading only the pieces the keys asked for fall in", () => {
    fc.assert(
      fc.property(
        // Over 1,024 keys: a filter of many pieces; hashes spread as cyrb53's are (no bias to small numbers).
        fc.array(fc.tuple(fc.noBias(hash), fc.noBias(hash)), { minLength: 1100, maxLength: 3000 }),
        fc.array(fc.tuple(fc.noBias(hash), fc.noBias(hash)), { minLength: 200, maxLength: 400 }),
        (keys, others) => {
          const filter = new KeyFilter(keys.length);
          for (const [hi, lo] of keys) filter.add(hi, lo);
          const bytes = Buffer.from(filter.words.buffer);
          const reads: number[] = [];
          // Each piece read at an odd offset of its buffer, as a piece of a larger read may be.
          const region = {
            bytes(from: number, to: number): Buffer {
              reads.push(from);
              return Buffer.concat([Buffer.alloc(1), bytes.subarray(from, to)]).subarray(1);
            },
          };
          const stored = new StoredKeyFilter(filter.words.length * 32, region);
          for (const [hi, lo] of [...others, ...keys.slice(0, 200)]) expect(stored.mayHold(hi, lo)).toBe(filter.mayHold(hi, lo));
          // A piece is read once, 64 bytes at a time.
          expect(new Set(reads).size).toBe(reads.length);
          expect(reads.every((from) => from % 64 === 0)).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });
});
