// CommonJS interop lives here only: ajv ships CommonJS, whose default export arrives as
// `module.default` or the module itself depending on the loader.
import Ajv2020Module from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { LosslessInteger } from "../model/lossless-integer.ts";

type Ajv2020Class = typeof Ajv2020Module.default;
const Ajv2020: Ajv2020Class =
  (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);

/**
 * Compiles a JSON Schema 2020-12 with the settings every agentstream schema uses. A record that
 * holds LosslessIntegers (integers beyond 2^53, kept as their digits) is checked as the numbers
 * they are, so `type: integer` accepts them.
 */
export function compileSchema(schema: object, refs: readonly object[] = []): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  for (const ref of refs) ajv.addSchema(ref);
  const validate = ajv.compile(schema);
  const lossless = ((data: unknown, context?: Parameters<ValidateFunction>[1]): boolean => {
    let valid = validate(data, context);
    // Only a failing record is looked at again: nearly all records pass, and never hold one.
    if (!valid && containsLosslessInteger(data)) valid = validate(JSON.parse(JSON.stringify(data)) as unknown, context);
    lossless.errors = validate.errors ?? null;
    return valid;
  }) as ValidateFunction;
  return Object.assign(lossless, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

/** Whether `value` holds a LosslessInteger anywhere (iterative: records may be deep). */
function containsLosslessInteger(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (LosslessInteger.is(node)) return true;
    for (const child of Object.values(node)) stack.push(child);
  }
  return false;
}

export type { ErrorObject, ValidateFunction };
