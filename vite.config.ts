import { defineConfig } from 'vite';

// the dev and preview servers send COOP/COEP so the page is cross-origin isolated
// (SharedArrayBuffer pose rings, SPEC §7).
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: '.',
  publicDir: 'public',
  server: { headers: isolationHeaders, port: 5173 },
  preview: { headers: isolationHeaders, port: 4173 },
  worker: { format: 'es' },
  build: { outDir: 'dist', target: 'es2022' },
});
