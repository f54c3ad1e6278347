// Source: see docs/dialects/aaep.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const aaep: Dialect = {
  name: "aaep",
  description: "AAEP v1 events (agent.output.streaming and the core events)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the aaep decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
