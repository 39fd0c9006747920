// @ts-check
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { wgslParser, wgslPlugin } from './scripts/eslint-plugin-wgsl.js';

/**
 * import direction (SPEC §2, ARCHITECTURE.md): each engine layer may import only the layers listed
 * here. `sap` solves pure-data problems and never sees bodies or shapes, so it imports math alone.
 */
const allowedImports = {
  'engine/math': [],
  'engine/model': ['engine/math'],
  'engine/state': ['engine/math', 'engine/model'],
  'engine/kinematics': ['engine/math', 'engine/model', 'engine/state'],
  'engine/dynamics': ['engine/math', 'engine/model', 'engine/state', 'engine/kinematics'],
  'engine/collision': ['engine/math', 'engine/model', 'engine/state', 'engine/kinematics'],
  'engine/sap': ['engine/math'],
  'engine/pipeline': [
    'engine/math',
    'engine/model',
    'engine/state',
    'engine/kinematics',
    'engine/dynamics',
    'engine/collision',
    'engine/sap',
  ],
  'engine/io': ['engine/math', 'engine/model', 'engine/state', 'engine/sap', 'engine/collision'],
  'engine/backends': [
    'engine/math',
    'engine/model',
    'engine/state',
    'engine/kinematics',
    'engine/dynamics',
    'engine/collision',
    'engine/sap',
    'engine/pipeline',
  ],
  'engine/worker': [
    'engine/math',
    'engine/model',
    'engine/state',
    'engine/kinematics',
    'engine/dynamics',
    'engine/collision',
    'engine/sap',
    'engine/pipeline',
    'engine/backends',
    'engine/io',
    'engine/index.ts',
  ],
  'engine/cli': [
    'engine/math',
    'engine/model',
    'engine/state',
    'engine/kinematics',
    'engine/dynamics',
    'engine/collision',
    'engine/sap',
    'engine/pipeline',
    'engine/backends',
    'engine/io',
    'engine/index.ts',
  ],
  'engine/index.ts': [
    'engine/math',
    'engine/model',
    'engine/state',
    'engine/kinematics',
    'engine/dynamics',
    'engine/collision',
    'engine/sap',
    'engine/pipeline',
    'engine/backends',
    'engine/io',
  ],
  app: ['engine/index.ts', 'engine/worker', 'scenes'],
  scenes: [],
};

/**
 * file-to-file exceptions to the layer table. The MuJoCo ghost's worker (engine/worker/ghost) gives
 * our model to MuJoCo as the bench's MuJoCo peer does: it reuses that peer's MJCF export and module
 * typings (browser-safe, no Node imports) rather than a copy of them.
 */
const LAYER_EXCEPTIONS = {
  'engine/worker/ghost': ['engine/cli/peers/mjcf_export.ts', 'engine/cli/peers/mujoco.ts'],
};

/** the layer key a repository-relative path belongs to, or undefined */
function layerOf(rel) {
  const keys = Object.keys(allowedImports).sort((a, b) => b.length - a.length);
  return keys.find((k) => rel === k || rel.startsWith(k + '/'));
}

const layering = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const root = process.cwd();
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const from = layerOf(file);
    if (!from) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path
        .relative(root, path.resolve(path.dirname(context.filename), source))
        .split(path.sep)
        .join('/');
      const to = layerOf(target) ?? layerOf(target + '.ts');
      if (!to || to === from) return;
      if (file.endsWith('.test.ts')) return; // tests may reach across layers to build fixtures
      const exception = Object.entries(LAYER_EXCEPTIONS).find(([dir]) => file.startsWith(dir + '/'));
      if (exception && exception[1].some((t) => target === t || target + '.ts' === t)) return;
      if (!allowedImports[from].includes(to)) {
        context.report({
          node,
          message: `import direction: ${from} may not import ${to} (allowed: ${allowedImports[from].join(', ') || 'none'})`,
        });
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

/** generated sources (scripts/gen_*.ts), exempt from the size warnings */
const SIZE_EXEMPT = ['engine/model/layout_views.ts', 'engine/sap/linalg/wasm/kernels_wasm.ts'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'bench-results/**', '**/*.as.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { local: { rules: { layering } } },
    rules: {
      'local/layering': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  // size (ARCHITECTURE.md): warnings at ~1,000 lines per file and ~150 code lines per function;
  // generated files are exempt, tests from the function limit (a describe block is one function)
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: SIZE_EXEMPT,
    rules: { 'max-lines': ['warn', { max: 1000 }] },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: [...SIZE_EXEMPT, '**/*.test.ts', '**/*.test.tsx', 'e2e/**'],
    rules: {
      'max-lines-per-function': ['warn', { max: 150, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  // WGSL: binding discipline and the df64 guard (scripts/eslint-plugin-wgsl.js)
  {
    files: ['shaders/**/*.wgsl'],
    languageOptions: { parser: wgslParser },
    plugins: { wgsl: wgslPlugin },
    rules: { 'wgsl/bindings': 'error' },
  },
);
