/**
 * JSON Schema from zod (v4) schemas: zod's own generator (`z.toJSONSchema`), with two additions it
 * lacks: fixed-length tuples get `minItems` / `maxItems` (and no further items), discriminated unions
 * are `oneOf` (their options exclude each other), and a schema zod cannot represent (a `z.custom`
 * check, a transform; zod would write `{}`) or describes too loosely carries its JSON Schema as zod
 * metadata ({@link withJsonSchema}).
 */
import { z } from './zod';

/** a JSON Schema document or fragment */
export type JsonSchema = { [key: string]: unknown };

/**
 * `schema` with `json` as its JSON Schema: zod's metadata (`.meta()`, a copy of `schema`), which
 * `z.toJSONSchema` writes over what it derives, and which copies made from it (`.describe()`,
 * `.check()`) inherit
 */
export function withJsonSchema<T extends z.ZodType>(schema: T, json: JsonSchema): T {
  return schema.meta(json) as T;
}

export interface JsonSchemaOptions {
  /** 'input' describes what a parser accepts (before transforms; scene files), 'output' what it emits */
  io?: 'input' | 'output';
  /** the JSON Schema dialect (default draft 2020-12) */
  target?: 'draft-7' | 'draft-2020-12';
}

/** the JSON Schema of a zod schema, through `z.toJSONSchema` (see the module comment) */
export function toJsonSchema(schema: z.ZodType, opts: JsonSchemaOptions = {}): JsonSchema {
  const target = opts.target ?? 'draft-2020-12';
  return z.toJSONSchema(schema, {
    target,
    io: opts.io ?? 'output',
    // the schemas zod cannot represent carry their JSON Schema ({@link withJsonSchema})
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const json = jsonSchema as JsonSchema;
      const def = zodSchema._zod.def;
      if (def.type === 'tuple' && !def.rest) {
        json.minItems = def.items.length;
        json.maxItems = def.items.length;
        if (target === 'draft-2020-12') json.items = false;
        else json.additionalItems = false;
      }
      if (def.type === 'union' && 'discriminator' in def && json.anyOf) {
        json.oneOf = json.anyOf;
        delete json.anyOf;
      }
    },
  }) as JsonSchema;
}
