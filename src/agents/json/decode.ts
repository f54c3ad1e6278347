// Source: none. `--from json` is framing only: every record becomes an opaque `unknown` event, kept
// verbatim, so that any NDJSON can be converted, validated and summarised.
import type { Dialect } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";

export const json: Dialect = {
  name: "json",
  description: "Any NDJSON: framing only, each record kept as an opaque event",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "opaque record (--from json)")] : [];
      },
      end: () => [],
    };
  },
};
