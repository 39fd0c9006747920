/**
 * Shareable links (SPEC §8): the URL hash `#link=<payload>` carries the scene (catalog id, URL or a
 * compressed inline scene), solver options, simulation settings, camera, time (as a step count) and
 * selection. payload = base64url(deflate(JSON)).
 *
 * Everything read from a link is untrusted: the payload is size-limited before and during
 * decompression, parsed as JSON (never evaluated), validated by one zod schema, and only ever used as
 * data — the scene text goes to the worker's validating loader, strings are rendered as text.
 */
import { Inflate, deflateSync, strFromU8, strToU8 } from 'fflate';
import { z } from 'zod';
import { SOLVER_OPTION_KEYS } from '../engine/index';

export const LINK_VERSION = 1;
/** longest accepted payload (characters after `#link=`) */
export const MAX_LINK_CHARS = 96 * 1024;
/** most bytes a payload may inflate to */
export const MAX_LINK_JSON_BYTES = 1024 * 1024;
/** longest inline scene carried by a link (characters) */
export const MAX_INLINE_SCENE = 512 * 1024;
/** most steps a link may ask to replay */
export const MAX_LINK_STEPS = 200_000;

export class LinkError extends Error {
  constructor(
    /** key path inside the link payload, '' for the payload as a whole */
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `link: ${path}: ${reason}` : `link: ${reason}`);
    this.name = 'LinkError';
  }
}

const finite = z.number().finite();
const vec3 = z.tuple([finite, finite, finite]);
const optionKey = z.enum(SOLVER_OPTION_KEYS as unknown as [string, ...string[]]);

export const linkSceneSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('catalog'),
    id: z
      .string()
      .max(128)
      .regex(/^[A-Za-z0-9_.-]+$/, 'catalog ids are letters, digits, _ . -'),
  }),
  z.object({
    kind: z.literal('url'),
    url: z
      .string()
      .max(2048)
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'only http(s) URLs'),
  }),
  z.object({
    kind: z.literal('inline'),
    name: z.string().min(1).max(256),
    text: z.string().max(MAX_INLINE_SCENE),
  }),
]);
export type LinkScene = z.infer<typeof linkSceneSchema>;

export const linkSchema = z
  .object({
    v: z.literal(LINK_VERSION),
    scene: linkSceneSchema,
    options: z.record(optionKey, z.union([z.string().max(64), finite, z.boolean()])).optional(),
    sim: z
      .object({
        dt: finite.positive().max(1).optional(),
        speed: finite.min(0.01).max(10).optional(),
        num_worlds: z.number().int().min(1).max(4096).optional(),
      })
      .strict()
      .optional(),
    camera: z.object({ position: vec3, target: vec3 }).strict().optional(),
    /** steps from the initial state; the time shown is step·dt */
    step: z.number().int().min(0).max(MAX_LINK_STEPS).optional(),
    /** informational: the scene time when the link was made [s] */
    time: finite.min(0).optional(),
    playing: z.boolean().optional(),
    /** selected body index */
    selection: z.number().int().min(0).max(1e7).nullable().optional(),
    view: z
      .object({
        overlay: z.boolean().optional(),
        collision: z.boolean().optional(),
        visual: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type LinkState = z.infer<typeof linkSchema>;

// ------------------------------------------------------------------------------------------ base64url

export function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new LinkError('', 'payload is not base64url');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw new LinkError('', 'payload is not base64url');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** inflates raw deflate data, stopping as soon as the output would exceed `limit` bytes */
export function boundedInflate(data: Uint8Array, limit: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = false;
  const inf = new Inflate((chunk) => {
    total += chunk.length;
    if (total > limit) over = true;
    else chunks.push(chunk);
  });
  try {
    // feed in small pieces so an oversized payload is cut off early
    for (let i = 0; i < data.length && !over; i += 4096) {
      inf.push(data.subarray(i, Math.min(i + 4096, data.length)), i + 4096 >= data.length);
    }
  } catch (e) {
    throw new LinkError(
      '',
      `payload is not valid deflate data (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  if (over) throw new LinkError('', `payload inflates to more than ${limit} bytes`);
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

// ------------------------------------------------------------------------------------------ encode / decode

/** the payload (without `#link=`) of a link state; throws LinkError when it would be too long */
export function encodeLink(state: LinkState): string {
  const checked = linkSchema.safeParse(state);
  if (!checked.success) throw issueError(checked.error);
  const payload = toBase64Url(deflateSync(strToU8(JSON.stringify(checked.data)), { level: 9 }));
  if (payload.length > MAX_LINK_CHARS) {
    throw new LinkError('', `the link would be ${payload.length} characters (limit ${MAX_LINK_CHARS})`);
  }
  return payload;
}

function issueError(err: z.ZodError): LinkError {
  const issue = err.issues[0];
  const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
  return new LinkError(path, issue.message);
}

/** decodes and validates a payload; throws LinkError naming the key path and the reason */
export function decodeLink(payload: string): LinkState {
  if (payload.length > MAX_LINK_CHARS) {
    throw new LinkError('', `payload is ${payload.length} characters (limit ${MAX_LINK_CHARS})`);
  }
  const bytes = fromBase64Url(payload);
  const json = boundedInflate(bytes, MAX_LINK_JSON_BYTES);
  let value: unknown;
  try {
    value = JSON.parse(strFromU8(json));
  } catch {
    throw new LinkError('', 'payload is not JSON');
  }
  const r = linkSchema.safeParse(value);
  if (!r.success) throw issueError(r.error);
  return r.data;
}

/** the link payload in a location hash, or null when the hash carries none */
export function linkPayloadFromHash(hash: string): string | null {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const part of h.split('&')) {
    if (part.startsWith('link=')) return part.slice(5);
  }
  return null;
}

/** a full URL for a state, based on `base` (the page URL without hash) */
export function linkUrl(base: string, state: LinkState): string {
  return `${base.split('#')[0]}#link=${encodeLink(state)}`;
}
