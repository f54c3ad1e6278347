/**
 * Whatever order the events come in (orphan tool results, a turn or message that ends without a
 * start, session.completed twice, events after it, tools never completed, ...), every writer's
 * output passes its own format's validator (schema + sequence rules): writers repair or report,
 * never pass invalid output through.
 */
import { describe, expect } from "vitest";
import { test } from "../helpers/property.ts";
import { formatSpecs } from "../../src/formats/index.ts";
import { convertEvents, validateFormat } from "../helpers/convert.ts";
import { mutatedEvents, oddEvents } from "../helpers/odd-events.ts";

describe.each(formatSpecs.map((spec) => spec.name))("%s", (format) => {
  test.prop([oddEvents], { numRuns: 300 })("any order of events gives output its validator accepts", (events) => {
    expect(validateFormat(format, convertEvents(events, format))).toEqual([]);
  });

  test.prop([mutatedEvents], { numRuns: 300 })(
    "a session with events dropped, repeated or moved gives output its validator accepts",
    (events) => {
      expect(validateFormat(format, convertEvents(events, format))).toEqual([]);
    },
  );
});
