// Source: see docs/dialects/gemini.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const gemini: Dialect = {
  name: "gemini",
  description: "Gemini CLI: gemini -p --output-format stream-json",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the gemini decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
