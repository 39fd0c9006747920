/**
 * The models a dropped folder or archive offers: every scene, URDF, MJCF and USD file, ranked so the
 * likely one comes first, and the files that are parts of another model (an MJCF file another one
 * includes, a USD layer another one references) or hold no model at all (MuJoCo Menagerie's
 * `keyframes.xml`, a ROS `package.xml`, a JSON file that is not a scene) set aside with the reason.
 *
 * Ranking: tier 0 ("likely") holds scene files and MJCF files that include others or lay a floor
 * (Menagerie's `scene*.xml`); tier 1 every other model. Within a tier: scene files, then URDF, MJCF,
 * USD text, USD binary; then the shallowest path; then alphabetical. Without `read` nothing is
 * sniffed and the extension alone decides.
 */
import { sceneJsonSchema } from '../engine/index';

/** one model file the user may load */
export interface Candidate {
  path: string;
  kind: 'scene' | 'urdf' | 'mjcf' | 'usd';
  /** 0: likely (a scene, an MJCF file that includes others or has a floor); 1: another model */
  tier: 0 | 1;
  /** a short description for the chooser, e.g. "MJCF · includes left_hand.xml · floor" */
  note: string;
}

/** a model-format file that is not offered, and why */
export interface SetAside {
  path: string;
  reason: string;
}

export interface Candidates {
  /** best first */
  candidates: Candidate[];
  /** model-format files that are fragments of another model or hold none */
  setAside: SetAside[];
}

/** extension order among equals: scene files first, then URDF, MJCF, USD */
const EXT_RANK: Record<string, number> = {
  '.yaml': 0,
  '.yml': 0,
  '.json': 1,
  '.urdf': 2,
  '.xml': 3,
  '.mjcf': 3,
  '.usda': 4,
  '.usd': 4,
  '.usdc': 5,
  '.usdz': 5,
};
const SCENE_EXT = new Set(['.yaml', '.yml', '.json']);
const USD_EXT = new Set(['.usd', '.usda', '.usdc', '.usdz']);

/** the lowercase extension with its dot ('' when none) */
export function extOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const i = base.lastIndexOf('.');
  return i <= 0 ? '' : base.slice(i).toLowerCase();
}

const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/**
 * whether a path is tool bookkeeping rather than a model: a hidden file or folder (Omniverse's
 * `.collect.mapping.json`, `.git/`) or macOS's zip metadata (`__MACOSX/`, `._name` forks)
 */
export function isBookkeeping(path: string): boolean {
  return path.split('/').some((seg) => seg.startsWith('.') || seg === '__MACOSX');
}

/** `rel` resolved against the folder `dir` (ending in '/' or empty), '.' and '..' folded */
export function joinPosix(dir: string, rel: string): string {
  const parts: string[] = [];
  for (const seg of (rel.startsWith('/') ? rel : dir + rel).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

/** the root element's name of an XML text (declarations, comments and DOCTYPE skipped) */
function xmlRoot(text: string): string | undefined {
  const s = text
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!DOCTYPE[^>]*>/gi, '');
  return /<\s*([A-Za-z_][\w.-]*)/.exec(s)?.[1];
}

/** what sniffing one file found */
interface Sniffed {
  kind?: Candidate['kind'];
  /** files this one includes or references (drop paths) */
  refs: string[];
  /** why it is no model, when it is none */
  none?: string;
  tier0?: boolean;
  note: string;
}

const SNIFF_BYTES = 1 << 20;

let sceneKeys: Set<string> | null = null;

/**
 * why a YAML or JSON text is no scene file, or '' when it may be one: a scene states its
 * `schema_version` and has only the scene schema's top-level keys (SAP Warp's control sequences
 * state a schema version too, with other keys)
 */
function notAScene(text: string, json: boolean): string {
  let keys: string[];
  if (json) {
    try {
      const doc: unknown = JSON.parse(text);
      keys = doc && typeof doc === 'object' && !Array.isArray(doc) ? Object.keys(doc) : [];
    } catch {
      // a scene cut at the sniffing limit, or a broken one: its loader says where
      keys = /"schema_version"\s*:/.test(text) ? ['schema_version'] : [];
    }
  } else {
    keys = [...text.matchAll(/^(?:"([^"]+)"|'([^']+)'|([A-Za-z_][\w.-]*))\s*:/gm)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
  }
  if (!keys.includes('schema_version')) return 'no schema_version';
  sceneKeys ??= new Set(Object.keys(sceneJsonSchema().properties ?? {}));
  const other = keys.find((k) => !sceneKeys!.has(k));
  return other === undefined ? '' : `top-level key '${other}'`;
}

function sniff(path: string, bytes: Uint8Array | undefined): Sniffed {
  const e = extOf(path);
  const dir = path.slice(0, path.lastIndexOf('/') + 1);
  if (!bytes) return { refs: [], note: '' };
  const isText = e !== '.usdc' && e !== '.usdz';
  const text = isText ? new TextDecoder().decode(bytes.subarray(0, SNIFF_BYTES)) : '';
  if (SCENE_EXT.has(e)) {
    const why = notAScene(text, e === '.json');
    if (why) return { refs: [], none: `not a scene file (${why})`, note: '' };
    return { kind: 'scene', refs: [], tier0: true, note: 'scene file' };
  }
  if (e === '.urdf' || e === '.xml' || e === '.mjcf') {
    const root = xmlRoot(text);
    if (root === 'robot') return { kind: 'urdf', refs: [], note: 'URDF' };
    if (root !== 'mujoco') return { refs: [], none: `not MJCF or URDF (<${root ?? '?'}> root)`, note: '' };
    const refs = [...text.matchAll(/<include\s[^>]*?file\s*=\s*(["'])(.*?)\1/g)].map((m) =>
      joinPosix(dir, m[2]),
    );
    if (refs.length === 0 && !/<body[\s>/]/.test(text))
      return { refs, none: 'MJCF without bodies (a fragment, e.g. keyframes)', note: '' };
    const floor = /<geom\s[^>]*type\s*=\s*["']plane["']/.test(text);
    const parts = ['MJCF'];
    if (refs.length) parts.push(`includes ${refs.map(baseName).join(', ')}`);
    if (floor) parts.push('floor');
    return { kind: 'mjcf', refs, tier0: refs.length > 0 || floor, note: parts.join(' · ') };
  }
  if (USD_EXT.has(e)) {
    // a text layer's sublayers, references and payloads (`@path@`); binary crates are not read here
    const refs =
      isText && text.startsWith('#usda')
        ? [...text.matchAll(/@([^@\n]+)@/g)]
            .map((m) => m[1])
            .filter((r) => USD_EXT.has(extOf(r)) && !/^[a-z]+:/i.test(r))
            .map((r) => joinPosix(r.startsWith('/') ? '' : dir, r))
        : [];
    return { kind: 'usd', refs, note: e === '.usdz' ? 'USDZ' : 'USD' };
  }
  return { refs: [], note: '' };
}

/**
 * The candidate models among `paths` (a drop's file map keys), best first, and the model-format
 * files set aside with the reason. `read` gives a file's bytes for sniffing (root element, includes,
 * references, schema_version); without it the extension alone decides.
 */
export function rankCandidates(
  paths: Iterable<string>,
  read?: (path: string) => Uint8Array | undefined,
): Candidates {
  const all = [...paths].filter((p) => EXT_RANK[extOf(p)] !== undefined && !isBookkeeping(p));
  const sniffed = new Map<string, Sniffed>();
  for (const p of all) {
    const e = extOf(p);
    if (read) sniffed.set(p, sniff(p, read(p)));
    else {
      const kind = SCENE_EXT.has(e) ? 'scene' : USD_EXT.has(e) ? 'usd' : e === '.urdf' ? 'urdf' : 'mjcf';
      sniffed.set(p, { kind, refs: [], tier0: kind === 'scene', note: kind === 'scene' ? 'scene file' : '' });
    }
  }
  const partOf = new Map<string, string>();
  for (const [p, s] of sniffed) for (const r of s.refs) if (r !== p && !partOf.has(r)) partOf.set(r, p);
  const candidates: Candidate[] = [];
  const setAside: SetAside[] = [];
  for (const p of all) {
    const s = sniffed.get(p)!;
    // the outermost file this one is part of (a payload of a payload of the robot's root layer)
    let owner = partOf.get(p);
    for (let hops = 0, up = owner; up !== undefined && hops < 64; hops++, up = partOf.get(up))
      if (up !== p) owner = up;
    if (owner !== undefined && s.kind !== 'scene')
      setAside.push({ path: p, reason: `part of ${baseName(owner)} (${owner})` });
    else if (s.none !== undefined || s.kind === undefined) setAside.push({ path: p, reason: s.none ?? '' });
    else candidates.push({ path: p, kind: s.kind, tier: s.tier0 ? 0 : 1, note: s.note });
  }
  const key = (c: Candidate): [number, number, number, string] => [
    c.tier,
    EXT_RANK[extOf(c.path)],
    c.path.split('/').length,
    c.path,
  ];
  candidates.sort((a, b) => {
    const ka = key(a),
      kb = key(b);
    for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return (ka[i] as number) - (kb[i] as number);
    return ka[3] < kb[3] ? -1 : ka[3] > kb[3] ? 1 : 0;
  });
  return { candidates, setAside };
}
