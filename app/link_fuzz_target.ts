/**
 * Fuzz target of share links (engine/io/fuzz drives it in a worker thread): a payload through
 * `decodeLink`, which must return a validated state or throw a LinkError that names a key path or a
 * byte offset. Test support only: the studio does not import this module.
 */
import { LinkError, decodeLink } from './link';

interface Outcome {
  result: 'loaded' | 'rejected';
  error?: string;
  where?: 'path' | 'offset';
  message?: string;
}

function finding(kind: string, message: string): Error {
  const e = new Error(message) as Error & { kind: string };
  e.name = 'FuzzFinding';
  e.kind = kind;
  return e;
}

export async function runLink(input: { kind: string; payload?: string }): Promise<Outcome> {
  if (input.kind !== 'link' || typeof input.payload !== 'string')
    throw new Error('runLink: expected a payload');
  let state;
  try {
    state = decodeLink(input.payload);
  } catch (e) {
    if (!(e instanceof LinkError)) {
      throw finding('untyped', `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`.slice(0, 300));
    }
    if (e.path) return { result: 'rejected', error: e.name, where: 'path', message: e.message };
    if (e.offset !== undefined)
      return { result: 'rejected', error: e.name, where: 'offset', message: e.message };
    throw finding('no_location', e.message);
  }
  // a URL scene may only be http(s); ids and names reach the UI as text only (e2e/security.spec.ts)
  if (state.scene.kind === 'url' && !/^https?:\/\//i.test(state.scene.url)) {
    throw finding('injection', `a link scene URL with scheme ${state.scene.url.slice(0, 20)}`);
  }
  if (Object.getPrototypeOf(state) !== Object.prototype)
    throw finding('prototype_pollution', 'decoded state prototype');
  return { result: 'loaded' };
}
