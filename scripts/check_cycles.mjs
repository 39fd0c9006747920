#!/usr/bin/env node
// Import-cycle check, run by `npm run lint`: builds the graph of relative imports (value and type
// imports, re-exports and dynamic imports alike) over the repository's TypeScript and JavaScript
// sources and fails with one line per cycle. ESLint sees one file at a time, so the cycle rule
// lives here; the layering rule (eslint.config.js) keeps the folders in order, this keeps files.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['engine', 'app', 'scenes', 'scripts', 'examples', 'e2e'];
const EXT = ['.ts', '.tsx', '.mts', '.js', '.mjs'];

/** every source file under the folders, repository-relative with `/` separators */
function sources() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const abs = path.join(dir, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else if (EXT.some((e) => name.endsWith(e)) && !name.endsWith('.d.ts')) out.push(abs);
    }
  };
  for (const f of FOLDERS) if (existsSync(path.join(root, f))) walk(path.join(root, f));
  return out;
}

/** the file a relative specifier names, or undefined (bare packages and assets are not edges) */
function resolve(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  const stem = base.replace(/\.(m?js)$/, '');
  const candidates = [base, ...EXT.map((e) => stem + e), ...EXT.map((e) => path.join(base, 'index' + e))];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

const files = sources();
const graph = new Map();
for (const f of files) {
  const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, true);
  const deps = new Set();
  for (const imp of info.importedFiles) {
    const to = resolve(f, imp.fileName);
    if (to && to !== f) deps.add(to);
  }
  graph.set(f, [...deps]);
}

// Tarjan's strongly connected components; each component of more than one file holds a cycle
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(v) {
  idx.set(v, index);
  low.set(v, index);
  index++;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!idx.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const comp = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1) components.push(comp);
  }
}
for (const f of files) if (!idx.has(f)) connect(f);

/** one shortest cycle through the component's first file (breadth-first inside the component) */
function cycleIn(comp) {
  const inComp = new Set(comp);
  const start = comp.slice().sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.get(v)) {
      if (w === start) {
        const cyc = [start];
        for (let u = v; u !== start; u = prev.get(u)) cyc.splice(1, 0, u);
        return [...cyc, start];
      }
      if (inComp.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return comp;
}

const rel = (f) => path.relative(root, f).split(path.sep).join('/');
if (components.length) {
  for (const comp of components) {
    console.error(`import cycle (${comp.length} files): ${cycleIn(comp).map(rel).join(' → ')}`);
  }
  console.error(`check_cycles: ${components.length} import cycle(s) among ${files.length} files`);
  process.exit(1);
}
console.log(`check_cycles: no import cycles among ${files.length} files`);
