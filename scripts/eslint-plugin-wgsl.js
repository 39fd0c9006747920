// @ts-check
/**
 * ESLint support for WGSL (shaders/**\/*.wgsl): a pass-through parser (a WGSL file becomes an empty
 * program carrying its text) and the "shader lint" of the binding discipline
 * (reference/layout_principles.md §5), checked by machine:
 *   - bindings are declared only in shaders/generated/layout.wgsl (and in shaders/testing/ probes);
 *     kernels reach data through the generated accessors;
 *   - in the generated layout, @group(0) (model) and @group(1) (inputs) are `read`, @group(2) (data)
 *     `read_write`, @group(3) uniform, and a stage binds at most 8 storage buffers;
 *   - every @compute entry point calls df_init(…) first, so the df64 guard against compiler
 *     re-association is in place before any df64 arithmetic.
 */

/** @type {import('eslint').Linter.Parser} */
export const wgslParser = {
  parseForESLint(text) {
    const lines = text.split('\n');
    const last = lines.length;
    return {
      ast: /** @type {any} */ ({
        type: 'Program',
        body: [],
        sourceType: 'module',
        comments: [],
        tokens: [],
        range: [0, text.length],
        loc: { start: { line: 1, column: 0 }, end: { line: last, column: lines[last - 1].length } },
      }),
      visitorKeys: { Program: [] },
    };
  },
};

const MAX_STORAGE_BUFFERS = 8;
const ACCESS_BY_GROUP = { 0: 'read', 1: 'read', 2: 'read_write' };

/** @type {import('eslint').Rule.RuleModule} */
const bindings = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = context.filename.split('\\').join('/');
    const text = context.sourceCode.text;
    const at = (index) => {
      const before = text.slice(0, index).split('\n');
      return { line: before.length, column: before[before.length - 1].length };
    };
    return {
      Program(node) {
        const isLayout = file.endsWith('shaders/generated/layout.wgsl');
        const isProbe = file.includes('shaders/testing/');
        let storage = 0;
        for (const m of text.matchAll(/@group\((\d+)\)\s*@binding\((\d+)\)\s*var<([^>]*)>\s*(\w+)/g)) {
          const loc = at(m.index ?? 0);
          if (!isLayout && !isProbe) {
            context.report({
              node,
              loc,
              message: `binding '${m[4]}' declared outside shaders/generated/layout.wgsl: use the generated accessors`,
            });
            continue;
          }
          if (!isLayout) continue;
          const group = Number(m[1]);
          const decl = m[3].split(',').map((s) => s.trim());
          if (decl[0] === 'storage') {
            storage++;
            const want = ACCESS_BY_GROUP[/** @type {0|1|2} */ (group)];
            if (want && decl[1] !== want) {
              context.report({
                node,
                loc,
                message: `@group(${group}) '${m[4]}' must be var<storage, ${want}>`,
              });
            }
            if (group === 3)
              context.report({ node, loc, message: `@group(3) is for uniforms; '${m[4]}' is storage` });
          } else if (decl[0] === 'uniform' && group !== 3) {
            context.report({ node, loc, message: `uniform '${m[4]}' must be in @group(3)` });
          }
        }
        if (storage > MAX_STORAGE_BUFFERS) {
          context.report({
            node,
            message: `${storage} storage buffers exceed WebGPU's default of ${MAX_STORAGE_BUFFERS} per stage: pack fields into arenas`,
          });
        }
        for (const m of text.matchAll(/@compute[^{]*fn\s+(\w+)\s*\([^)]*\)[^{]*\{\s*([^\n]*)/g)) {
          if (!/^df_init\(/.test(m[2])) {
            context.report({
              node,
              loc: at(m.index ?? 0),
              message: `entry point '${m[1]}' must call df_init(…) first (df64 guard)`,
            });
          }
        }
      },
    };
  },
};

export const wgslPlugin = { rules: { bindings } };
