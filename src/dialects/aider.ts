// Source: see docs/dialects/aider.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const aider: Dialect = {
  name: "aider",
  description: "Aider plain-text output (best effort)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the aider decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
