/**
 * Long lines joined in shared memory in rawStrings mode (framing/ndjson/_raw-strings.ts): the log worker
 * then reads the held strings where they are, with no copy (Node's TextDecoder reads shared memory).
 */
import { useLineMemory } from "../framing/ndjson/_raw-strings.ts";

export function useSharedLineMemory(): void {
  useLineMemory((bytes) => new Uint8Array(new SharedArrayBuffer(bytes)));
}
