/**
 * Node's native byte scans, handed to the framing layer (which imports no Node module and otherwise
 * scans in JavaScript): `buffer.isUtf8` for the skipped strings' UTF-8 (selective reading and
 * `rawStrings`), and `Buffer.prototype.indexOf` for the `\u` escapes a held string may not have
 * (framing/ndjson/_raw-strings.ts). Same verdicts either way; called by the Node entries that read
 * long tool outputs this way (`summary`, `convert --to agentstream`, `run`).
 */
import { isUtf8 } from "node:buffer";
import { useUtf8Validator } from "../framing/ndjson/_skim.ts";
import { useEscapeSearch } from "../framing/ndjson/_raw-strings.ts";

const UNICODE_ESCAPE = Buffer.from("\\u");

export function useNativeScans(): void {
  useUtf8Validator(isUtf8);
  useEscapeSearch((bytes, from) => Buffer.prototype.indexOf.call(bytes, UNICODE_ESCAPE, from));
}
