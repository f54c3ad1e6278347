// Source: see docs/dialects/witness.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const witness: Dialect = {
  name: "witness",
  description: "Witness Forge NDJSON events {type, content, brain, meta}",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the witness decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
