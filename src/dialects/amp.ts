// Source: see docs/dialects/amp.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const amp: Dialect = {
  name: "amp",
  description: "Amp: amp -x --stream-json (Claude-compatible)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the amp decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
