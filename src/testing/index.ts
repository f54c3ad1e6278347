/**
 * The conformance suite every dialect runs, published as `agentstream/testing`.
 * `describeDialect(dialect, { describe, it, expect }, options)` registers the rules with the test
 * runner you pass in (vitest or anything with the same shape), so this module imports no runner.
 */
import type { Dialect } from "../dialect/dialect.ts";
import type { Issue } from "../errors.ts";
import type { AgentEvent } from "../model/events.ts";
import { createEventReader } from "../pipeline/create-event-reader.ts";
import { checkSequence } from "../formats/agentstream/rules.ts";
import { validateEvent } from "../validation/validate-event.ts";

/** The parts of a test runner the suite needs (vitest's `describe`, `it`, `expect` fit). */
export interface TestRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => void | Promise<void>): void;
  expect(value: unknown): { toEqual(expected: unknown): void; toBe(expected: unknown): void };
}

export interface ConformanceOptions {
  /** A small, valid stream in the dialect (text), used by the rules that need real records. */
  sample: string;
  /** A record no rule of the dialect understands. @defaultValue {"type":"agentstream_conformance_probe","x":1} */
  unknownRecord?: string;
}

/** Reads text with one dialect; returns the events and issues. */
export function decodeWith(dialect: Dialect, text: string): { events: AgentEvent[]; issues: Issue[] } {
  const events: AgentEvent[] = [];
  const issues: Issue[] = [];
  const reader = createEventReader({ onEvent: (e) => events.push(e) }, { dialect, onIssue: (i) => issues.push(i) });
  reader.feed(text);
  reader.end();
  return { events, issues };
}

/** Drops what legitimately differs between two readings of the same records (line numbers). */
function withoutLines(events: readonly AgentEvent[]): unknown[] {
  return events.map((e) => ({ ...e, source: e.source === undefined ? undefined : { dialect: e.source.dialect } }));
}

/** Registers the rules every dialect must follow. */
export function describeDialect(dialect: Dialect, runner: TestRunner, options: ConformanceOptions): void {
  const { describe, it, expect } = runner;
  const probe = options.unknownRecord ?? '{"type":"agentstream_conformance_probe","x":1}';
  describe(`dialect conformance: ${dialect.name}`, () => {
    it("empty input gives no events and no issues", () => {
      const { events, issues } = decodeWith(dialect, "");
      expect(events.filter((e) => e.type !== "session.completed")).toEqual([]);
      expect(issues.filter((i) => i.severity !== "info")).toEqual([]);
    });
    it("blank lines are ignored", () => {
      const spaced = options.sample.split("\n").join("\n\n");
      expect(withoutLines(decodeWith(dialect, spaced).events)).toEqual(withoutLines(decodeWith(dialect, options.sample).events));
    });
    it("CRLF line ends read the same as LF", () => {
      const crlf = options.sample.replace(/\r?\n/g, "\r\n");
      expect(decodeWith(dialect, crlf).events).toEqual(decodeWith(dialect, options.sample).events);
    });
    it("one byte at a time reads the same as whole", () => {
      const whole = decodeWith(dialect, options.sample);
      const events: AgentEvent[] = [];
      const reader = createEventReader({ onEvent: (e) => events.push(e) }, { dialect });
      const bytes = new TextEncoder().encode(options.sample);
      for (let i = 0; i < bytes.length; i++) reader.feed(bytes.subarray(i, i + 1));
      reader.end();
      expect(events).toEqual(whole.events);
    });
    if (!dialect.readsText) {
      it("an unknown record gives an unknown event that keeps it verbatim", () => {
        const { events } = decodeWith(dialect, `${probe}\n`);
        const unknown = events.filter((e) => e.type === "unknown");
        expect(unknown.length).toBe(1);
        expect(unknown[0]?.type === "unknown" ? unknown[0].raw : undefined).toEqual(JSON.parse(probe));
      });
    }
    it("the end of input closes whatever is open", () => {
      const { events } = decodeWith(dialect, options.sample);
      const open = checkSequence(events).filter((i) => /never completed/.test(i.message));
      expect(open).toEqual([]);
    });
    it("every event validates against the model's schema and sequence rules", () => {
      const { events } = decodeWith(dialect, options.sample);
      expect(events.flatMap((e) => validateEvent(e))).toEqual([]);
      expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
    });
    it("a record cut off at the end never throws", () => {
      const cut = options.sample.slice(0, Math.max(0, options.sample.length - 7));
      expect(Array.isArray(decodeWith(dialect, cut).events)).toBe(true);
    });
  });
}
