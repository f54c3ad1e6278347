// Source: see docs/dialects/gemini-session.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const geminiSession: Dialect = {
  name: "gemini-session",
  description: "Gemini CLI saved session files",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the gemini-session decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
