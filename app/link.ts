/**
 * Shareable links (SPEC §8): the URL hash `#link=<payload>` carries the scene (catalog id, URL or a
 * compressed inline scene), solver options, simulation settings, camera, time (as a step count) and
 * selection. payload = base64url(deflate(JSON)).
 *
 * Everything read from a link is untrusted: the payload is size-limited before and during
 * decompression, parsed as JSON (never evaluated), validated by one zod schema, and only ever used as
 * data — the scene text goes to the worker's validating loader, strings are rendered as text, and a
 * URL scene is fetched only after the user agrees (app/session.ts). A rejected link names where it
 * failed: a key path in the JSON, or a byte offset in the payload.
 */
import { Inflate, deflateSync, strFromU8, strToU8 } from 'fflate';
import { z } from 'zod';
import { SOLVER_OPTION_KEYS } from '../engine/index';
import { LIMITS, limitMessage } from '../engine/worker/limits';
import { BACKEND_CHOICES } from '../engine/worker/protocol';

export const LINK_VERSION = 1;
/** longest accepted payload (characters after `#link=`) */
export const MAX_LINK_CHARS = LIMITS.max_link_chars;
/** most bytes a payload may inflate to */
export const MAX_LINK_JSON_BYTES = LIMITS.max_link_json_bytes;
/** longest inline scene carried by a link (characters) */
export const MAX_INLINE_SCENE = LIMITS.max_link_scene_chars;
/** most steps a link may ask to replay */
export const MAX_LINK_STEPS = LIMITS.max_link_steps;

export class LinkError extends Error {
  constructor(
    /** key path inside the link payload, '' for the payload as a whole */
    readonly path: string,
    readonly reason: string,
    /** for payload-level errors: the character (base64) or byte (deflate, JSON) offset where it failed */
    readonly offset?: number,
  ) {
    super(
      path
        ? `link: ${path}: ${reason}`
        : offset !== undefined
          ? `link: payload at ${offset}: ${reason}`
          : `link: ${reason}`,
    );
    this.name = 'LinkError';
  }
}

const finite = z.number().finite();
const vec3 = z.tuple([finite, finite, finite]);
const optionKey = z.enum(SOLVER_OPTION_KEYS as unknown as [string, ...string[]]);

export const linkSceneSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('catalog'),
      id: z
        .string()
        .max(128)
        .regex(/^[A-Za-z0-9_.-]+$/, 'catalog ids are letters, digits, _ . -'),
    })
    .strict(),
  z
    .object({
      kind: z.literal('url'),
      url: z
        .string()
        .max(2048)
        .url()
        .refine((u) => /^https?:\/\//i.test(u), 'only http(s) URLs'),
    })
    .strict(),
  z
    .object({
      kind: z.literal('inline'),
      name: z.string().min(1).max(256),
      text: z.string().max(MAX_INLINE_SCENE, limitMessage('the inline scene', 'max_link_scene_chars')),
    })
    .strict(),
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
        /** the step backend (absent: cpu) */
        backend: z.enum(BACKEND_CHOICES).optional(),
        /** MJCF: the `<key>` the simulation starts from (absent: the reference pose) */
        keyframe: z.string().min(1).max(256).optional(),
      })
      .strict()
      .optional(),
    camera: z.object({ position: vec3, target: vec3 }).strict().optional(),
    /** steps from the initial state; the time shown is step·dt */
    step: z
      .number()
      .int()
      .min(0)
      .max(MAX_LINK_STEPS, limitMessage('the step count', 'max_link_steps'))
      .optional(),
    /** informational: the scene time when the link was made [s] (with `state`: the time restored) */
    time: finite.min(0).optional(),
    /**
     * the exact state at `step`, carried when replaying the steps would not reproduce it (bodies
     * were dragged or controls set): binary64 little-endian values, base64url
     */
    state: z
      .object({
        joint_q: z
          .string()
          .max(MAX_LINK_CHARS)
          .regex(/^[A-Za-z0-9_-]*$/, 'base64url'),
        joint_qd: z
          .string()
          .max(MAX_LINK_CHARS)
          .regex(/^[A-Za-z0-9_-]*$/, 'base64url'),
      })
      .strict()
      .optional(),
    playing: z.boolean().optional(),
    /** selected body index */
    selection: z.number().int().min(0).max(1e7).nullable().optional(),
    view: z
      .object({
        overlay: z.boolean().optional(),
        collision: z.boolean().optional(),
        visual: z.boolean().optional(),
        /** the camera follows the selected body */
        follow: z.boolean().optional(),
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
  const bad = text.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) {
    throw new LinkError('', `payload is not base64url (character ${JSON.stringify(text[bad])})`, bad);
  }
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw new LinkError('', 'payload is not base64url (its length cannot be decoded)', text.length);
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
  let ended = false;
  const inf = new Inflate((chunk, final) => {
    total += chunk.length;
    if (final) ended = true;
    if (total > limit) over = true;
    else chunks.push(chunk);
  });
  // feed in small pieces so an oversized payload is cut off early, and errors have an offset
  const PIECE = 1024;
  let at = 0;
  try {
    for (; at < data.length && !over; at += PIECE) {
      inf.push(data.subarray(at, Math.min(at + PIECE, data.length)), at + PIECE >= data.length);
    }
    if (data.length === 0) inf.push(new Uint8Array(0), true);
  } catch (e) {
    throw new LinkError(
      '',
      `payload is not valid deflate data (${e instanceof Error ? e.message : String(e)})`,
      Math.min(at, data.length),
    );
  }
  if (over) {
    throw new LinkError(
      '',
      limitMessage(`the payload inflates to more than ${limit} bytes, which`, 'max_link_json_bytes'),
      Math.min(at, data.length),
    );
  }
  if (!ended) throw new LinkError('', 'payload is truncated (the deflate stream does not end)', data.length);
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

// ------------------------------------------------------------------------------------------ state arrays

/** float64 values as base64url (little-endian binary64) */
export function encodeF64(values: ArrayLike<number>): string {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(8 * i, values[i], true);
  return toBase64Url(bytes);
}

/** {@link encodeF64}'s inverse; `path` names the field in errors (whole 8-byte values, all finite) */
export function decodeF64(text: string, path: string): Float64Array<ArrayBuffer> {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Url(text);
  } catch (e) {
    throw new LinkError(path, e instanceof LinkError ? e.reason : String(e));
  }
  if (bytes.length % 8 !== 0)
    throw new LinkError(path, `${bytes.length} bytes is not a whole number of values`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(bytes.length / 8);
  for (let i = 0; i < out.length; i++) {
    const x = view.getFloat64(8 * i, true);
    if (!Number.isFinite(x)) throw new LinkError(`${path}[${i}]`, 'not a finite number');
    out[i] = x;
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
    throw new LinkError('', limitMessage(`the link of ${payload.length} characters`, 'max_link_chars'));
  }
  return payload;
}

function issueError(err: z.ZodError): LinkError {
  const issue = err.issues[0];
  const segs: (string | number)[] = [...issue.path];
  // an unknown key is located at the key itself
  if (issue.code === 'unrecognized_keys' && issue.keys.length) segs.push(issue.keys[0]);
  const path = segs.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
  return new LinkError(path || '(root)', issue.message);
}

/** the offset of a JSON syntax error (from V8's "at position N" or "line L column C"), else the text length */
function jsonErrorPosition(message: string, text: string): number {
  const pos = /at position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const lines = text.split('\n');
    let o = 0;
    for (let l = 0; l < Number(lc[1]) - 1 && l < lines.length; l++) o += lines[l].length + 1;
    return o + Number(lc[2]) - 1;
  }
  return text.length;
}

/** decodes and validates a payload; throws LinkError naming the key path or the offset, and the reason */
export function decodeLink(payload: string): LinkState {
  if (typeof payload !== 'string') throw new LinkError('', 'payload is not text', 0);
  if (payload.length > MAX_LINK_CHARS) {
    throw new LinkError(
      '',
      limitMessage(`the payload of ${payload.length} characters`, 'max_link_chars'),
      MAX_LINK_CHARS,
    );
  }
  const bytes = fromBase64Url(payload);
  const json = boundedInflate(bytes, MAX_LINK_JSON_BYTES);
  const text = strFromU8(json);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new LinkError('', `payload is not JSON (${msg.slice(0, 120)})`, jsonErrorPosition(msg, text));
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
