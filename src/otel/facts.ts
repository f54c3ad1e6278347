/** The session facts the otlp mapping writes on a session span: `summary --json`'s own builder (EncoderOptions.sessionFacts). */
import type { SessionFacts } from "../encoding/record-encoder.ts";
import { createSummaryBuilder } from "../summary/summarize.ts";

/** The summary's record counters are not the spans' business: the builder is asked only for the session's facts. */
const NO_RECORDS = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };

/** A fresh fold of one session's facts, as `summary --json` makes them (no tool call list: memory stays flat). */
export function summaryFacts(): SessionFacts {
  const builder = createSummaryBuilder({ toolCalls: false });
  return { add: (event) => builder.add(event), result: (dialect) => builder.result(NO_RECORDS, dialect) };
}
