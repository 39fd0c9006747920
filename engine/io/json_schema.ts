/**
 * JSON Schema from zod (v4) schemas: zod's own generator (`z.toJSONSchema`), with two additions it
 * lacks: fixed-length tuples get `minItems` / `maxItems` (and no further items), and a schema zod
 * cannot represent (a `z.custom` check, a transform's output) may carry a hand-written fragment
 * registered with {@link withJsonSchema}.
 */
import { z } from 'zod/v4';

/** a JSON Schema document or fragment */
export type JsonSchema = { [key: string]: unknown };

const fragments = new WeakMap<object, JsonSchema>();

/** registers the JSON Schema fragment emitted for `schema` (replaces what zod would derive) */
export function withJsonSchema<T extends z.ZodType>(schema: T, json: JsonSchema): T {
  fragments.set(schema, json);
  return schema;
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
    // a schema without a fragment that zod cannot represent still throws below
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const json = jsonSchema as JsonSchema;
      const fragment = fragments.get(zodSchema);
      if (fragment) {
        const description = json.description;
        for (const k of Object.keys(json)) delete json[k];
        Object.assign(json, structuredClone(fragment));
        if (description !== undefined && json.description === undefined) json.description = description;
        return;
      }
      const def = zodSchema._zod.def;
      if (def.type === 'tuple' && !def.rest) {
        json.minItems = def.items.length;
        json.maxItems = def.items.length;
        if (target === 'draft-2020-12') json.items = false;
        else json.additionalItems = false;
      }
      if ((def.type === 'custom' || def.type === 'transform') && Object.keys(json).length === 0) {
        throw new Error(`toJsonSchema: a ${def.type} schema needs a fragment (withJsonSchema)`);
      }
    },
  }) as JsonSchema;
}
