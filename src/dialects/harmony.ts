// Source: see docs/dialects/harmony.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const harmony: Dialect = {
  name: "harmony",
  description: "OpenAI Harmony-formatted text (gpt-oss)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the harmony decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
