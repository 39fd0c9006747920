/** builds link payloads in Node the way the studio does (deflate + base64url), without validation */
import { deflateSync, strToU8 } from 'fflate';

export function encodeLinkForTest(value: unknown): string {
  return Buffer.from(deflateSync(strToU8(JSON.stringify(value)), { level: 9 })).toString('base64url');
}
