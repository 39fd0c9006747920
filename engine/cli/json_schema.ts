/**
 * A small zod → JSON Schema (draft 2020-12) converter for the zod types our schemas use
 * (object, array, tuple, enum, literal, string, number, boolean, record, union, optional, nullable).
 */
import { z, type ZodTypeAny } from 'zod';

export type JsonSchema = Record<string, unknown>;

export function zodToJsonSchema(t: ZodTypeAny): JsonSchema {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...convert(t) };
}

function convert(t: ZodTypeAny): JsonSchema {
  if (t instanceof z.ZodOptional) return convert(t.unwrap());
  if (t instanceof z.ZodNullable) return { anyOf: [convert(t.unwrap()), { type: 'null' }] };
  if (t instanceof z.ZodDefault) return { ...convert(t._def.innerType), default: t._def.defaultValue() };
  if (t instanceof z.ZodEffects) return convert(t.innerType());
  if (t instanceof z.ZodString) return { type: 'string' };
  if (t instanceof z.ZodNumber) return t.isInt ? { type: 'integer' } : { type: 'number' };
  if (t instanceof z.ZodBoolean) return { type: 'boolean' };
  if (t instanceof z.ZodLiteral) return { const: t.value };
  if (t instanceof z.ZodEnum) return { enum: [...t.options] };
  if (t instanceof z.ZodArray) return { type: 'array', items: convert(t.element) };
  if (t instanceof z.ZodTuple) {
    const items = (t.items as ZodTypeAny[]).map(convert);
    return { type: 'array', prefixItems: items, minItems: items.length, maxItems: items.length };
  }
  if (t instanceof z.ZodUnion) return { anyOf: (t.options as ZodTypeAny[]).map(convert) };
  if (t instanceof z.ZodRecord) return { type: 'object', additionalProperties: convert(t.valueSchema) };
  if (t instanceof z.ZodObject) {
    const shape = t.shape as Record<string, ZodTypeAny>;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [k, v] of Object.entries(shape)) {
      properties[k] = convert(v);
      if (!v.isOptional()) required.push(k);
    }
    const strict = t._def.unknownKeys === 'strict';
    return { type: 'object', properties, required, ...(strict ? { additionalProperties: false } : {}) };
  }
  if (t instanceof z.ZodAny || t instanceof z.ZodUnknown) return {};
  throw new Error(`zodToJsonSchema: unsupported zod type ${t.constructor.name}`);
}
