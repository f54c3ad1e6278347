// Source: see docs/dialects/oneshot.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const oneshot: Dialect = {
  name: "oneshot",
  description: "oneshot unified activity packets",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the oneshot decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
