// Source: see docs/dialects/qwen.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const qwen: Dialect = {
  name: "qwen",
  description: "Qwen Code: qwen -p --output-format stream-json (Claude-compatible)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the qwen decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
