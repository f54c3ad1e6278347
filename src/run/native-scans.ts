/**
 * Node's native UTF-8 check (`buffer.isUtf8`), handed to the framing layer (which imports no Node module
 * and otherwise checks in JavaScript) for the long strings the skimmer may leave undecoded: selective
 * reading (`summary`), the ends of long tool outputs (`render`) and held strings (`convert --to agentstream`, `run --to agentstream`). Same verdicts either way.
 */
import { isUtf8 } from "node:buffer";
import { useUtf8Validator } from "../framing/ndjson/_skim.ts";

export function useNativeScans(): void {
  useUtf8Validator(isUtf8);
}
