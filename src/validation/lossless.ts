/**
 * JSON Schema checks of records that may hold LosslessIntegers (integers beyond 2^53, kept as their digits): a
 * record failing its check is checked again as the numbers it holds, so `type: integer` accepts them. Shared by
 * the validators compiled at run time (ajv.ts) and the event validator compiled ahead of time (validate-event.ts).
 */
import type { ValidateFunction } from "ajv";
import { LosslessInteger } from "../model/lossless-integer.ts";

/** `validate`, re-checking a failing record that holds a LosslessInteger as plain JSON numbers. */
export function acceptingLosslessIntegers(validate: ValidateFunction): ValidateFunction {
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
