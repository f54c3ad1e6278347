/**
 * The validator contract of a format: a JSON Schema per record plus a sequence checker per stream.
 * `agentstream validate --format <name>` and `schema <name>` use them (the registry: src/formats/).
 */
import type { Issue } from "../errors.ts";
import type { JsonObject } from "../model/events.ts";
import type { ValidateFunction } from "./ajv.ts";

/** Validates one stream of records in a given format. */
export interface FormatValidator {
  /** Checks one record (a parsed JSON line) of the format. */
  check(record: JsonObject, line: number): Issue[];
  /** The stream ended. */
  end(): Issue[];
}

export interface FormatSpec {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema 2020-12 of one record. */
  readonly schema: object;
  /**
   * A validator for one stream. `compile` turns the format's schema into a check: `compileSchema` (ajv, exported
   * beside this type), or a caller's own that keeps what it compiled, as `validate` does per command. It is the
   * caller's so that reading a format, which needs its decoder and never its validator, loads no ajv.
   */
  createValidator(compile: CompileSchema): FormatValidator;
  /**
   * The rules about one record alone beyond its schema (AAEP's RFC 3339 timestamp and urgency rules, Witness's
   * unknown type): with the schema, what `validate --no-sequence` checks of a record cut from its stream.
   */
  recordRules?(record: JsonObject, line: number): Issue[];
}

/** Compiles a format's JSON Schema into a check; a caller's own may keep what it compiled. */
type CompileSchema = (schema: object) => ValidateFunction;
