// Source: see docs/dialects/cline.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const cline: Dialect = {
  name: "cline",
  description: "Cline CLI JSON output (say/ask messages, pretty-printed objects)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the cline decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
