import { describe, expect, it } from "vitest";
import type { AgentEventDraft } from "../../src/model/events.ts";
import { dispatch, handlers } from "../../src/dialect/handlers.ts";
import { type Wire, asWire, fieldItems, fieldNum, fieldObj, fieldStr } from "../../src/dialect/wire.ts";
import type { DecodeContext } from "../../src/dialect/dialect.ts";

interface Sample {
  type: "a" | "b";
  name?: string;
  count?: number;
  inner?: { label?: string };
  list?: { label?: string }[];
}

const context: DecodeContext = { line: 1, report: () => {} };

describe("typed wire reads", () => {
  it("checks the runtime type of every field it reads", () => {
    const v = asWire<Sample>({ type: "a", name: 7, count: "3", inner: { label: "x" }, list: [{ label: "y" }, 4, null] });
    expect(fieldStr(v, "type")).toBe("a");
    expect(fieldStr(v, "name")).toBeUndefined();
    expect(fieldNum(v, "count")).toBeUndefined();
    expect(fieldStr(fieldObj(v, "inner"), "label")).toBe("x");
    expect(fieldItems(v, "list").map((item) => fieldStr(item, "label"))).toEqual(["y"]);
    expect(asWire<Sample>("not an object")).toBeUndefined();
  });

  it("does not compile a key the wire type does not have", () => {
    const v: Wire<Sample> = { type: "a", name: "n" };
    // @ts-expect-error a misspelt key is a compile error
    expect(fieldStr(v, "nmae")).toBeUndefined();
  });
});

describe("handler tables", () => {
  const table = handlers<Sample["type"], Wire<Sample>, string[]>({
    a: (record, seen, out) => {
      seen.push(fieldStr(record, "name") ?? "");
      out.push({ type: "text", text: "a" } as AgentEventDraft);
    },
    b: (_record, seen) => {
      seen.push("b");
    },
  });

  it("runs the handler of the record's type and says false for a type it does not know", () => {
    const seen: string[] = [];
    const out: AgentEventDraft[] = [];
    expect(dispatch(table, "a", { type: "a", name: "first" }, seen, out, context)).toBe(true);
    expect(dispatch(table, "b", { type: "b" }, seen, out, context)).toBe(true);
    expect(dispatch(table, "c", { type: "c" }, seen, out, context)).toBe(false);
    expect(dispatch(table, "toString", {}, seen, out, context)).toBe(false);
    expect(seen).toEqual(["first", "b"]);
    expect(out).toHaveLength(1);
  });
});
