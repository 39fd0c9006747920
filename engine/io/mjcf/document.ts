/**
 * MJCF document stage: reads the main file, expands `<include>`s (recursively, relative to the
 * including file, then to the main file's folder), merges the `<compiler>` settings and resolves
 * default classes (nested, with `childclass`) into per-element attribute lookups.
 */
import { LIMITS } from '../limits';
import { ImportError } from '../assets/errors';
import { readAsset } from '../assets/importer';
import { decodeText, dirname, type AssetResolver } from '../assets/resolver';
import { parseXml, type XmlElement } from '../xml/xml';

/** most nested `<include>` levels */
export const MAX_INCLUDE_DEPTH = LIMITS.max_include_depth;

/** an `ImportError` located at an element */
export function elError(el: XmlElement, reason: string): ImportError {
  return new ImportError(reason, el.file, el.line, el.column);
}

/** parses one MJCF file and splices included files into it (element trees keep their own file names) */
export async function loadMjcfTree(
  text: string,
  path: string,
  resolver: AssetResolver | undefined,
): Promise<XmlElement> {
  const root = parseXml(text, { file: path || undefined });
  if (root.name !== 'mujoco') throw elError(root, `expected a <mujoco> root element, got <${root.name}>`);
  await expandIncludes(root, path, dirname(path), resolver, 0, new Set([path]));
  return root;
}

async function expandIncludes(
  el: XmlElement,
  path: string,
  mainDir: string,
  resolver: AssetResolver | undefined,
  depth: number,
  stack: Set<string>,
): Promise<void> {
  const out: XmlElement[] = [];
  for (const c of el.children) {
    if (c.name !== 'include') {
      await expandIncludes(c, path, mainDir, resolver, depth, stack);
      out.push(c);
      continue;
    }
    const ref = c.attrs.file;
    if (!ref) throw elError(c, '<include> needs a file');
    if (!resolver) throw elError(c, `cannot read included file '${ref}' without a resolver`);
    if (depth >= MAX_INCLUDE_DEPTH)
      throw elError(c, `includes nested deeper than max_include_depth = ${MAX_INCLUDE_DEPTH}`);
    let target = resolver.resolve(path, ref);
    if (!(await resolver.exists(target))) {
      const alt = resolver.resolve(mainDir ? `${mainDir}/_` : '_', ref);
      if (await resolver.exists(alt)) target = alt;
    }
    if (stack.has(target)) throw elError(c, `include cycle through '${target}'`);
    let text: string;
    try {
      text = decodeText(await readAsset(resolver, target), target);
    } catch (e) {
      const reason = e instanceof ImportError ? e.message : String(e);
      throw new ImportError(`<include file="${ref}">: ${reason}`, c.file, c.line, c.column);
    }
    const sub = parseXml(text, { file: target });
    if (sub.name !== 'mujoco')
      throw elError(sub, `an included file must have a <mujoco> root, got <${sub.name}>`);
    const next = new Set(stack).add(target);
    await expandIncludes(sub, target, mainDir, resolver, depth + 1, next);
    out.push(...sub.children);
  }
  el.children = out;
}

/** `<compiler>` settings the importer uses */
export interface CompilerSettings {
  /** true when angles are in degrees (MJCF's default) */
  degrees: boolean;
  eulerseq: string;
  meshdir?: string;
  texturedir?: string;
  autolimits: boolean;
  inertiafromgeom: 'auto' | 'true' | 'false';
  boundmass: number;
  boundinertia: number;
  discardvisual: boolean;
}

/** merges every `<compiler>` element of the (expanded) document */
export function readCompiler(root: XmlElement): CompilerSettings {
  const c: CompilerSettings = {
    degrees: true,
    eulerseq: 'xyz',
    autolimits: true,
    inertiafromgeom: 'auto',
    boundmass: 0,
    boundinertia: 0,
    discardvisual: false,
  };
  for (const el of root.children.filter((x) => x.name === 'compiler')) {
    const a = el.attrs;
    if (a.angle !== undefined) {
      if (a.angle !== 'degree' && a.angle !== 'radian')
        throw elError(el, `angle must be degree or radian; got '${a.angle}'`);
      c.degrees = a.angle === 'degree';
    }
    if (a.eulerseq !== undefined) {
      if (!/^[xyzXYZ]{3}$/.test(a.eulerseq))
        throw elError(el, `eulerseq must be 3 letters from xyzXYZ; got '${a.eulerseq}'`);
      c.eulerseq = a.eulerseq;
    }
    if (a.assetdir !== undefined) c.meshdir = c.texturedir = a.assetdir;
    if (a.meshdir !== undefined) c.meshdir = a.meshdir;
    if (a.texturedir !== undefined) c.texturedir = a.texturedir;
    if (a.autolimits !== undefined) c.autolimits = a.autolimits === 'true';
    if (a.inertiafromgeom !== undefined) {
      if (!['auto', 'true', 'false'].includes(a.inertiafromgeom))
        throw elError(el, `inertiafromgeom must be auto, true or false`);
      c.inertiafromgeom = a.inertiafromgeom as CompilerSettings['inertiafromgeom'];
    }
    if (a.boundmass !== undefined) c.boundmass = Number(a.boundmass) || 0;
    if (a.boundinertia !== undefined) c.boundinertia = Number(a.boundinertia) || 0;
    if (a.discardvisual !== undefined) c.discardvisual = a.discardvisual === 'true';
    if (a.coordinate !== undefined && a.coordinate !== 'local')
      throw elError(el, `coordinate="${a.coordinate}" is not supported (only local)`);
  }
  return c;
}

/** element kinds that default classes hold; every actuator shortcut shares 'actuator' */
const ACTUATOR_KINDS = new Set([
  'general',
  'motor',
  'position',
  'velocity',
  'intvelocity',
  'damper',
  'cylinder',
  'muscle',
  'adhesion',
]);
const defaultKind = (name: string): string => (ACTUATOR_KINDS.has(name) ? 'actuator' : name);

/**
 * Default classes: `attrs(className, kind)` is the merged attribute map of that class for an element
 * kind (geom, joint, site, mesh, actuator, …), inherited from the parent classes; the top class is 'main'.
 */
export class DefaultClasses {
  private readonly merged = new Map<string, Map<string, Record<string, string>>>();

  constructor(root: XmlElement) {
    this.merged.set('main', new Map());
    for (const d of root.children.filter((x) => x.name === 'default')) this.walk(d, undefined);
  }

  private walk(d: XmlElement, parent: string | undefined): void {
    const name = d.attrs.class ?? (parent === undefined ? 'main' : undefined);
    if (name === undefined) throw elError(d, 'a nested <default> needs a class');
    if (parent !== undefined && this.merged.has(name)) throw elError(d, `duplicate default class '${name}'`);
    const base = parent !== undefined ? this.merged.get(parent)! : (this.merged.get(name) ?? new Map());
    const own = new Map<string, Record<string, string>>();
    for (const [k, v] of base) own.set(k, { ...v });
    for (const c of d.children) {
      if (c.name === 'default') continue;
      const kind = defaultKind(c.name);
      own.set(kind, { ...(own.get(kind) ?? {}), ...c.attrs });
      if (kind === 'actuator') own.get(kind)!.__kind = c.name;
    }
    this.merged.set(name, own);
    for (const c of d.children) if (c.name === 'default') this.walk(c, name);
  }

  has(name: string): boolean {
    return this.merged.has(name);
  }

  /** merged defaults of `cls` for an element kind ({} when none) */
  attrs(cls: string, kind: string): Record<string, string> {
    return this.merged.get(cls)?.get(defaultKind(kind)) ?? {};
  }
}
