export { agentstreamSchema } from "./agentstream-schema.ts";
export { checkSequence, createSequenceChecker, schemaIssues, validateEvent, type SequenceChecker } from "./validate.ts";
export { formatSpecs, getFormatSpec, type FormatSpec, type FormatValidator } from "./formats.ts";
