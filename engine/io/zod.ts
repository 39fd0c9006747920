/**
 * zod's v4 API as the engine's schemas use it. Its JIT fast path for objects is off: that path
 * compiles parsers with `new Function`, and merely probing for it is a `script-src` violation under
 * the studio's Content-Security-Policy (no eval). Every schema module imports `z` from here.
 */
import { z } from 'zod/v4';

z.config({ jitless: true });

export { z };
