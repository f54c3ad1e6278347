// Source: see docs/dialects/cursor.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const cursor: Dialect = {
  name: "cursor",
  description: "Cursor Agent CLI: cursor-agent -p --output-format stream-json [--stream-partial-output]",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the cursor decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
