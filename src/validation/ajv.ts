// CommonJS interop lives here only: ajv ships CommonJS, whose default export arrives as
// `module.default` or the module itself depending on the loader.
import Ajv2020Module from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { acceptingLosslessIntegers } from "./lossless.ts";

type Ajv2020Class = typeof Ajv2020Module.default;
const Ajv2020: Ajv2020Class =
  (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);

/**
 * Compiles a JSON Schema 2020-12 with the settings every agentstream schema uses. A record that
 * holds LosslessIntegers (integers beyond 2^53, kept as their digits) is checked as the numbers
 * they are, so `type: integer` accepts them. The event schema is compiled ahead of time with the
 * same settings (scripts/generate-event-validator.mjs): keep the two in step.
 */
export function compileSchema(schema: object, refs: readonly object[] = []): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  for (const ref of refs) ajv.addSchema(ref);
  return acceptingLosslessIntegers(ajv.compile(schema));
}

export type { ErrorObject, ValidateFunction };
