// CommonJS interop lives here only: ajv ships CommonJS, whose default export arrives as
// `module.default` or the module itself depending on the loader.
import Ajv2020Module from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";

type Ajv2020Class = typeof Ajv2020Module.default;
const Ajv2020: Ajv2020Class = (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);

/** Compiles a JSON Schema 2020-12 with the settings every agentstream schema uses. */
export function compileSchema(schema: object, refs: readonly object[] = []): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  for (const ref of refs) ajv.addSchema(ref);
  return ajv.compile(schema);
}

export type { ErrorObject, ValidateFunction };
