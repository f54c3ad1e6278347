/** The validators' bounded memory of ids (src/validation/recent-ids.ts): the oldest forgotten past the capacity. */
import { describe, expect, test } from "vitest";
import { RecentIds } from "../../src/validation/recent-ids.ts";

describe("RecentIds", () => {
  test("keeps the latest `capacity` ids; setting one again makes it the newest", () => {
    const ids = new RecentIds<number>(3);
    for (const [i, id] of ["a", "b", "c"].entries()) ids.set(id, i);
    ids.set("a", 10); // renewed: "b" is now the oldest
    ids.set("d", 3);
    expect(["a", "b", "c", "d"].map((id) => ids.has(id))).toEqual([true, false, true, true]);
    expect(ids.get("a")).toBe(10);
    ids.delete("c");
    ids.clear();
    expect(ids.has("a")).toBe(false);
  });

  test("a million ids hold no more than the capacity", () => {
    const ids = new RecentIds(1000);
    for (let i = 0; i < 1_000_000; i++) ids.set(`id${i}`, true);
    let kept = 0;
    for (let i = 0; i < 1_000_000; i++) if (ids.has(`id${i}`)) kept++;
    expect(kept).toBe(1000);
    expect(ids.has("id999999")).toBe(true);
  });
});
