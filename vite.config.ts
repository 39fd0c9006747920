import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineConfig, type Plugin } from 'vite';

// the dev and preview servers send COOP/COEP so the page is cross-origin isolated
// (SharedArrayBuffer pose rings, SPEC §7).
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * Content-Security-Policy of the studio. Everything it runs is its own bundle: scripts, the module
 * worker and styles come from 'self' (no eval, no inline scripts). 'wasm-unsafe-eval' lets the
 * worker compile the engine's own WebAssembly kernels, embedded in its bundle (it allows WebAssembly
 * compilation only, not JS eval; without it the engine falls back to its JS kernels); leva's CSS-in-JS
 * (stitches) writes inline <style> rules, hence 'unsafe-inline' for styles only; images are the
 * canvas exports (data:/blob:). `connect-src https:` is for URL scenes from share links, which are
 * fetched only after the user agrees (app/ui/UrlConsent.tsx). No plugins, no <base>, no forms, and
 * (as a header) no framing. The dev server also needs its HMR websocket.
 */
export function contentSecurityPolicy(mode: 'build' | 'dev', header = false): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", "'wasm-unsafe-eval'"],
    'worker-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'", 'https:', ...(mode === 'dev' ? ['ws://127.0.0.1:*', 'ws://localhost:*'] : [])],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
  };
  // frame-ancestors is ignored in a <meta> policy: headers only
  if (header) directives['frame-ancestors'] = ["'none'"];
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}

/**
 * The MuJoCo ghost worker's own policy (engine/worker/ghost/ghost_worker.ts). A dedicated worker
 * from a URL is governed by the policy of its script's response, not by the page's: the ghost
 * worker's script alone is served with this one. MuJoCo's JS bindings (embind) build their call
 * wrappers with `new Function`, hence 'unsafe-eval' here (and nowhere else); 'wasm-unsafe-eval'
 * compiles MuJoCo's WebAssembly, fetched from 'self'. The engine worker and the page keep the studio
 * policy without eval.
 */
export function ghostWorkerPolicy(): string {
  return [
    "default-src 'none'",
    "script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'",
    "connect-src 'self'",
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** the ghost worker's script: its bundle (`assets/ghost_worker-<hash>.js`) or, in dev, its source */
export function isGhostWorkerScript(url: string): boolean {
  const path = url.split('?')[0];
  return (
    /\/assets\/ghost_worker-[\w-]+\.js$/.test(path) || path.endsWith('/engine/worker/ghost/ghost_worker.ts')
  );
}

/** serves the ghost worker's script with {@link ghostWorkerPolicy} in place of the studio policy */
function ghostWorkerCsp(): Plugin {
  const middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (req.url && isGhostWorkerScript(req.url)) {
      const set = res.setHeader.bind(res);
      res.setHeader = (k: string, v: number | string | readonly string[]) =>
        set(k, k.toLowerCase() === 'content-security-policy' ? ghostWorkerPolicy() : v);
    }
    next();
  };
  return {
    name: 'sap-studio-ghost-worker-csp',
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

/** writes the policy into index.html as a <meta> tag (built files carry it whatever serves them) */
function cspMeta(): Plugin {
  let mode: 'build' | 'dev' = 'build';
  return {
    name: 'sap-studio-csp',
    configResolved(c) {
      mode = c.command === 'serve' ? 'dev' : 'build';
    },
    transformIndexHtml() {
      return [
        {
          tag: 'meta',
          attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy(mode) },
          injectTo: 'head-prepend',
        },
      ];
    },
  };
}

const securityHeaders = (mode: 'build' | 'dev') => ({
  ...isolationHeaders,
  'Content-Security-Policy': contentSecurityPolicy(mode, true),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

export default defineConfig(({ mode }) => ({
  root: '.',
  // `vite build --mode test` (scripts/e2e.mjs) is a test build: the worker protocol accepts its
  // fault-injection command there and nowhere else (engine/worker/protocol.ts)
  define: { __SAP_TEST_BUILD__: JSON.stringify(mode === 'test') },
  publicDir: 'public',
  plugins: [cspMeta(), ghostWorkerCsp()],
  server: { headers: securityHeaders('dev'), port: 5173 },
  preview: { headers: securityHeaders('build'), port: 4173 },
  worker: { format: 'es' },
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    rollupOptions: {
      output: {
        // three, r3f and leva change rarely: keep them out of the app chunk
        manualChunks: (id) => (id.includes('node_modules') ? 'vendor' : undefined),
      },
    },
  },
}));
