/** Days in a time zone without formatting every request: checked against Intl over a year of DST changes. */
import { describe, expect, it } from "vitest";
import { calendar } from "../../src/usage/aggregate.ts";

describe("calendar", () => {
  it.each(["UTC", "America/New_York", "Europe/Paris", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham"])(
    "%s: the day of every time equals Intl's, across its offset changes",
    (timeZone) => {
      const cal = calendar(timeZone);
      const intl = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
      const wrong: string[] = [];
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 17 * 60_000 + 7_000) {
        if (cal(t).day !== intl.format(new Date(t))) wrong.push(new Date(t).toISOString());
      }
      expect(wrong).toEqual([]);
    },
  );

  it("weeks start on Monday, months are the day's", () => {
    const cal = calendar("UTC");
    expect(cal(Date.UTC(2026, 2, 1, 12))).toEqual({ day: "2026-03-01", week: "2026-02-23", month: "2026-03" });
    expect(cal(Date.UTC(2026, 2, 2, 0))).toEqual({ day: "2026-03-02", week: "2026-03-02", month: "2026-03" });
  });
});
