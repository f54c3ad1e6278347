// Source: see docs/dialects/opencode.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const opencode: Dialect = {
  name: "opencode",
  description: "OpenCode: opencode run --format json",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the opencode decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
