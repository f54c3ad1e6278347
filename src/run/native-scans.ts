/**
 * Node's native UTF-8 check (`buffer.isUtf8`), handed to the framing layer (which imports no Node module
 * and otherwise checks in JavaScript) for the long strings the skimmer may leave undecoded: selective
 * reading (`summary`), the ends of long tool outputs (`render`) and `rawStrings` (`convert --to agentstream`, `run`). Same verdicts either way.
 */
import { isUtf8 } from "node:buffer";
import { useUtf8Validator } from "../framing/ndjson/_skim.ts";
import { useLineMemory } from "../framing/ndjson/_raw-strings.ts";

export function useNativeScans(): void {
  useUtf8Validator(isUtf8);
}

/**
 * Long lines joined in shared memory in rawStrings mode (framing/ndjson/_raw-strings.ts): the log worker
 * then reads the held strings where they are, with no copy (Node's TextDecoder reads shared memory).
 */
export function useSharedLineMemory(): void {
  useLineMemory((bytes) => new Uint8Array(new SharedArrayBuffer(bytes)));
}
