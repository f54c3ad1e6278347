import { describe, expect, test } from "vitest";
import { RecentMap } from "../../src/dialect/recent-map.ts";

describe("RecentMap", () => {
  test("keeps at least the last `capacity` entries set, and lets older ones go a generation at a time", () => {
    const map = new RecentMap<string, number>(4);
    for (let i = 0; i < 100; i++) {
      map.set(`k${i}`, i);
      for (let back = 0; back < 4 && back <= i; back++) expect(map.get(`k${i - back}`)).toBe(i - back);
    }
    let kept = 0;
    for (let i = 0; i < 100; i++) if (map.get(`k${i}`) !== undefined) kept++;
    expect(kept).toBeGreaterThanOrEqual(4);
    expect(kept).toBeLessThanOrEqual(8);
    expect(map.get("k0")).toBeUndefined();
  });

  test("a key set again is the latest, and a deleted key is gone from both generations", () => {
    const map = new RecentMap<string, string>(2);
    map.set("a", "1");
    map.set("b", "2"); // a and b move to the previous generation
    map.set("a", "3"); // a is the latest again
    expect(map.get("a")).toBe("3");
    map.set("c", "4"); // a and c: the previous generation; b is let go
    expect(map.get("b")).toBeUndefined();
    expect(map.get("a")).toBe("3");
    map.delete("a");
    expect(map.get("a")).toBeUndefined();
  });
});
