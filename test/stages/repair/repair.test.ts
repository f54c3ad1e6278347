/**
 * The stream repair stage, by the themes of ralph-workflow's suite (snapshot detection and
 * extraction, overlap thresholds, duplicate suppression, final versus streamed, lifecycle,
 * unknown events), on streams built to break the delta contract.
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { completed, delta, line, see, started } from "../../helpers/streams.ts";

describe("snapshot detection and extraction", () => {
  it("a stream of snapshots yields each character once (the exponential-duplication bug)", () => {
    const s = see([
      started("m"),
      delta("m", "Hello"),
      delta("m", "Hello World"),
      delta("m", "Hello World! How are"),
      delta("m", "Hello World! How are you?"),
    ]);
    expect(s.streamed.get("m")).toBe("Hello World! How are you?");
    expect(s.repairs.length).toBeGreaterThan(0);
    expect(s.repairs.every((r) => r.type === "repair" && r.kind === "snapshot-as-delta")).toBe(true);
  });

  it("a snapshot of a long text is cut to its new suffix whatever the ratio", () => {
    const first = "The configuration file lives in ~/.config/app.";
    const s = see([started("m"), delta("m", first), delta("m", `${first} It is read at start-up, and every key is optional.`)]);
    expect(s.streamed.get("m")).toBe(`${first} It is read at start-up, and every key is optional.`);
    const repair = s.repairs[0];
    expect(repair?.type === "repair" && repair.removedChars).toBe(first.length);
  });

  it("an exact repeat of a snapshot adds nothing", () => {
    const t = "Running the full test suite now.";
    const s = see([started("m"), delta("m", t), delta("m", t), delta("m", `${t} Done`)]);
    expect(s.streamed.get("m")).toBe(`${t} Done`);
  });

  it("recovers when the first snapshots were too short to tell", () => {
    // "Hi there" (8) then a snapshot that is much longer: rule 2 needs the ratio or a boundary;
    // the chain rule (a delta that repeats the previous delta) catches the rest.
    const s = see([
      started("m"),
      delta("m", "Hi there"),
      delta("m", "Hi there, I read the file and"),
      delta("m", "Hi there, I read the file and found the bug."),
    ]);
    expect(s.streamed.get("m")).toBe("Hi there, I read the file and found the bug.");
  });

  it("true deltas and snapshots mixed in one message", () => {
    const s = see([
      started("m"),
      delta("m", "The test "),
      delta("m", "fails because"),
      delta("m", "The test fails because the date"),
      delta("m", " is parsed in UTC."),
    ]);
    expect(s.streamed.get("m")).toBe("The test fails because the date is parsed in UTC.");
  });
});

describe("overlap thresholds: real repetition is never removed", () => {
  it.each([
    ["the the", ["the", " the"]],
    [". .", [".", " ."]],
    ["haha", ["ha", "ha"]],
    ["...", [".", ".", "."]],
    ["| --- | --- |", ["| --- ", "| --- |"]],
    ["Yes. Yes. Yes.", ["Yes.", " Yes.", " Yes."]],
    ["abab", ["a", "b", "a", "b"]],
  ])("%j survives", (text, deltas) => {
    const s = see([started("m"), ...deltas.map((d) => delta("m", d)), completed("m", text)]);
    expect(s.streamed.get("m")).toBe(text);
    expect(s.final.get("m")).toBe(text);
    expect(s.repairs).toEqual([]);
  });

  it("a short chunk is not a snapshot prefix unless the next delta extends it", () => {
    const s = see([started("m"), delta("m", "I "), delta("m", "think so")]);
    expect(s.streamed.get("m")).toBe("I think so");
  });
});

describe("duplicate suppression", () => {
  it("the same delta several times in a row is kept once", () => {
    const chunk = "compiling the project ";
    const s = see([started("m"), delta("m", "Now "), delta("m", chunk), delta("m", chunk), delta("m", chunk), delta("m", "done")]);
    expect(s.streamed.get("m")).toBe(`Now ${chunk}done`);
    expect(s.repairs.map((r) => r.type === "repair" && r.kind)).toEqual(["duplicate-delta", "duplicate-delta"]);
  });

  it("an alternating A, B, A, B pattern is kept", () => {
    const a = "row one value ";
    const b = "row two value ";
    const s = see([started("m"), delta("m", a), delta("m", b), delta("m", a), delta("m", b)]);
    expect(s.streamed.get("m")).toBe(a + b + a + b);
  });
});

describe("final versus streamed", () => {
  it("the complete message after its deltas replaces, never appends", () => {
    const s = see([started("m"), delta("m", "Fixed the "), delta("m", "bug."), completed("m", "Fixed the bug.")]);
    expect(s.final.get("m")).toBe("Fixed the bug.");
    expect(s.events.filter((e) => e.type === "message.completed")).toHaveLength(1);
  });

  it("a complete message under another id that repeats a streamed one is dropped (matched by content)", () => {
    const s = see([
      started("a"),
      delta("a", "All 7 tests "),
      delta("a", "pass now."),
      completed("a", "All 7 tests pass now."),
      completed("recap-1", "All 7 tests pass now."),
    ]);
    expect(s.final.has("recap-1")).toBe(false);
    expect(s.repairs.map((r) => r.type === "repair" && r.kind)).toEqual(["final-matched-by-content"]);
  });

  it("a complete message with no streamed twin is kept", () => {
    const s = see([completed("x", "Standalone answer.")]);
    expect(s.final.get("x")).toBe("Standalone answer.");
  });

  it("deltas that arrive after their complete message are dropped", () => {
    const s = see([started("m"), completed("m", "Whole text."), delta("m", "Whole "), delta("m", "text.")]);
    expect(s.final.get("m")).toBe("Whole text.");
    expect(s.streamed.get("m")).toBeUndefined();
    expect(s.repairs.map((r) => r.type === "repair" && r.kind)).toEqual(["delta-after-completion", "delta-after-completion"]);
  });

  it("an empty completion does not wipe the streamed text", () => {
    const s = see([started("m"), delta("m", "Partial answer that streamed"), completed("m", "")]);
    expect(s.final.get("m")).toBe("Partial answer that streamed");
  });

  it("a completion that is the raw concatenation of snapshot deltas is corrected", () => {
    const raw = ["Hello", "Hello World", "Hello World, again"];
    const s = see([started("m"), ...raw.map((d) => delta("m", d)), completed("m", raw.join(""))]);
    expect(s.final.get("m")).toBe("Hello World, again");
  });
});

describe("lifecycle and ordering faults", () => {
  it("a delta for a message that never started gets a start, and a report", () => {
    const s = see([delta("m", "orphan text here"), completed("m", "orphan text here")]);
    expect(s.events.map((e) => e.type)).toEqual(["repair", "message.started", "message.delta", "message.completed"]);
    expect(checkSequence(s.events.filter((e) => e.type !== "repair").map((e, i) => ({ ...e, seq: i })))).toEqual([]);
  });

  it("a repeated message.started (GLM behind Claude Code) is dropped", () => {
    const s = see([started("m"), delta("m", "Some text"), started("m"), delta("m", " and more"), completed("m", "Some text and more")]);
    expect(s.events.filter((e) => e.type === "message.started")).toHaveLength(1);
    expect(s.streamed.get("m")).toBe("Some text and more");
  });

  it("a second completion: same text dropped, different text reported and kept", () => {
    const same = see([started("m"), completed("m", "A"), completed("m", "A")]);
    expect(same.events.filter((e) => e.type === "message.completed")).toHaveLength(1);
    const other = see([started("m"), completed("m", "A"), completed("m", "B")]);
    expect(other.final.get("m")).toBe("B");
    expect(other.repairs.map((r) => r.type === "repair" && r.kind)).toEqual(["second-completion"]);
  });

  it("positions downstream always equal the text before them", () => {
    const s = see([started("m"), delta("m", "Hel"), delta("m", "Hello"), delta("m", "Hello there"), delta("m", " friend")]);
    expect(checkSequence(s.events).filter((i) => i.severity === "error")).toEqual([]);
  });
});

describe("unknown events and --no-repair", () => {
  it("unknown and other events pass through untouched", () => {
    const s = see([line("unknown", { raw: { type: "future" } }), line("metric", { name: "x", values: { a: 1 } })]);
    expect(s.events.map((e) => e.type)).toEqual(["unknown", "metric"]);
  });

  it("--no-repair shows the raw duplicates", () => {
    const lines = [started("m"), delta("m", "Hello"), delta("m", "Hello World")];
    expect(see(lines, { repair: false }).streamed.get("m")).toBe("HelloHello World");
    expect(see(lines).streamed.get("m")).toBe("Hello World");
  });
});

describe("1000 deltas in, one message out", () => {
  it("as true deltas, as snapshots, and as a mix", () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${i} `);
    const text = words.join("");
    const asDeltas = see([started("m"), ...words.map((w) => delta("m", w))]);
    expect(asDeltas.streamed.get("m")).toBe(text);
    const snapshots = words.map((_, i) => words.slice(0, i + 1).join(""));
    const asSnapshots = see([started("m"), ...snapshots.map((snapshot) => delta("m", snapshot))]);
    expect(asSnapshots.streamed.get("m")).toBe(text);
    expect(asSnapshots.events.filter((e) => e.type === "message.delta").length).toBeLessThanOrEqual(1000);
  });
});

/** True when some cut point repeats the whole text before it right away (no reader can tell that from a snapshot). */
function isAmbiguous(text: string, cuts: number[]): boolean {
  // A delta that begins with the whole text before it reads the same as a snapshot.
  if (cuts.some((c) => text.startsWith(text.slice(0, c), c))) return true;
  // A later chunk that begins like the whole text so far: as a delta it is real repetition, as a
  // snapshot it is not; the stage bets on snapshot only past the evidence thresholds.
  const head = text.slice(0, Math.min(8, text.length));
  return head.length >= 2 && text.indexOf(head, 1) !== -1;
}

describe("property: any text, cut anywhere, sent as deltas, snapshots or a mix, comes out exactly once", () => {
  const textArb = fc.lorem({ maxCount: 40, mode: "words" }).filter((t) => t.length > 0);
  const planArb = fc.array(fc.record({ cut: fc.nat(), snapshot: fc.boolean() }), { minLength: 1, maxLength: 30 });

  test.prop([textArb, planArb, fc.boolean()], { numRuns: 300 })("final text exactly once", (text, plan, withCompletion) => {
    const cuts = [...new Set(plan.map((p) => p.cut % (text.length + 1)))].filter((c) => c > 0 && c < text.length).sort((a, b) => a - b);
    fc.pre(!isAmbiguous(text, cuts));
    const points = [...cuts, text.length];
    const lines = [started("m")];
    let prev = 0;
    points.forEach((point, i) => {
      const asSnapshot = plan[i % plan.length]?.snapshot === true;
      lines.push(delta("m", asSnapshot ? text.slice(0, point) : text.slice(prev, point)));
      prev = point;
    });
    if (withCompletion) lines.push(completed("m", text));
    const s = see(lines);
    if (withCompletion) expect(s.final.get("m")).toBe(text);
    else expect(s.streamed.get("m")).toBe(text);
  });
});
