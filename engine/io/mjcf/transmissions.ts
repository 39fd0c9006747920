/**
 * MJCF spatial tendons and the actuators with a tendon or slider-crank transmission, read into the
 * builder's spatial tendons and length actuators (engine/model/transmissions.ts).
 *
 * - `<spatial>`: its `<site>` path with `<pulley divisor>` branches (MuJoCo's length: per branch the
 *   sum of the segment lengths between consecutive sites, divided by the branch's divisor);
 *   `limited`/`range` → a SAP tendon-limit constraint (default limit stiffness, as for fixed
 *   tendons), `stiffness` + `springlength` (one value or a rest band; −1: the length at the
 *   authored pose) → a spring, `damping` → damping, both explicit. A `<geom>` in the path (wrapping)
 *   is not built: the tendon runs straight between its sites (reported as unsupported).
 * - `<motor|position|velocity|general tendon=…>` and `cranksite`/`slidersite`/`cranklength`: an
 *   actuator whose length is gear·l (l the tendon length, or the slider-crank's), with MuJoCo's
 *   gain and affine bias (position kp/kv, velocity kv, general gainprm[0]/biasprm), its ctrlrange
 *   and forcerange when limited.
 */
import type { ModelBuilder } from '../../model';
import type { ImportLog } from '../assets/importer';
import type { XmlElement } from '../xml/xml';
import { elError } from './document';

/** the attribute reader of the MJCF importer (class defaults resolved) */
export interface MjcfAttrs {
  attr(el: XmlElement, cls: string, name: string, kind?: string): string | undefined;
  nums(el: XmlElement, cls: string, name: string, kind?: string): number[] | undefined;
  vec(el: XmlElement, cls: string, name: string, n: number, kind?: string): number[] | undefined;
  num(el: XmlElement, cls: string, name: string, kind?: string): number | undefined;
  limited(el: XmlElement, cls: string, flag: string, rangeAttr: string, kind?: string): boolean;
}

/** a named MJCF site as the builder sees it */
export interface MjcfSite {
  /** builder body (-1 world) */
  body: number;
  /** position in that body's frame (world frame for the world) [m] */
  point: number[];
  /** the site's z axis in that frame */
  zaxis: number[];
  /** position in the world at the authored pose [m] */
  world: number[];
}

/** what the readers need from the importer */
export interface MjcfTransmissionContext {
  b: ModelBuilder;
  rd: MjcfAttrs;
  log: ImportLog;
  prefix: string;
  site(el: XmlElement, name: string | undefined): MjcfSite;
  /** names of joints whose springref differs from their ref (MuJoCo's qpos_spring ≠ qpos0) */
  springrefJoints: string[];
}

/** spatial-tendon attributes that change the physics and are not built */
const SPATIAL_NOT_BUILT = ['frictionloss', 'armature', 'margin'] as const;
/** spatial-tendon attributes read or without effect on the physics */
const SPATIAL_KNOWN = new Set([
  'name',
  'class',
  'group',
  'limited',
  'range',
  'stiffness',
  'damping',
  'springlength',
  'width',
  'rgba',
  'material',
  'user',
  ...SPATIAL_NOT_BUILT,
]);

/** Reads one `<spatial>` into the builder; returns its spatial-tendon index. */
export function readSpatialTendon(ctx: MjcfTransmissionContext, t: XmlElement, label: string): number {
  const { rd, log } = ctx;
  const cls = t.attrs.class ?? 'main';
  const path: ({ body: number; point: number[] } | { divisor: number })[] = [];
  const authored: (number[] | null)[] = [];
  for (const e of t.children) {
    if (e.name === 'site') {
      const s = ctx.site(e, e.attrs.site);
      path.push({ body: s.body, point: s.point });
      authored.push(s.world);
    } else if (e.name === 'pulley') {
      const d = rd.num(e, cls, 'divisor', 'pulley');
      if (d === undefined || !(d > 0)) throw elError(e, `tendon '${label}': <pulley> needs a divisor > 0`);
      path.push({ divisor: d });
      authored.push(null);
    } else if (e.name === 'geom') {
      log.unsupportedFeature(
        `tendon '${label}': wrapping around geom '${e.attrs.geom ?? '?'}' is not built (the tendon is treated as straight segments between its sites)`,
      );
    } else {
      log.warn(`tendon '${label}': <${e.name}> in a spatial tendon is ignored`);
    }
  }
  if (!path.length || 'divisor' in path[0] || 'divisor' in path[path.length - 1])
    throw elError(t, `spatial tendon '${label}' must start and end at a <site>`);
  // attributes not read
  for (const a of SPATIAL_NOT_BUILT) {
    const v = rd.num(t, cls, a, 'tendon') ?? 0;
    if (v !== 0) log.unsupportedFeature(`tendon '${label}': ${a}="${v}" is not built`);
  }
  if (rd.limited(t, cls, 'actuatorfrclimited', 'actuatorfrcrange', 'tendon'))
    log.unsupportedFeature(
      `tendon '${label}': actuatorfrcrange (a bound on its actuators' total force) is not built`,
    );
  const ignored = Object.keys(t.attrs).filter(
    (k) => !SPATIAL_KNOWN.has(k) && k !== 'actuatorfrclimited' && k !== 'actuatorfrcrange',
  );
  if (rd.attr(t, cls, 'solreflimit', 'tendon') !== undefined) ignored.push('solreflimit');
  if (rd.attr(t, cls, 'solimplimit', 'tendon') !== undefined) ignored.push('solimplimit');
  if (ignored.length)
    log.warn(
      `tendon '${label}': ${[...new Set(ignored)].sort().join(', ')} not read (limits use the default limit stiffness)`,
    );
  let lower = -Infinity,
    upper = Infinity;
  if (rd.limited(t, cls, 'limited', 'range', 'tendon')) {
    const r = rd.vec(t, cls, 'range', 2, 'tendon');
    if (!r) throw elError(t, `a limited tendon needs a range`);
    if (r[0] > r[1]) throw elError(t, `tendon range lower ${r[0]} > upper ${r[1]}`);
    [lower, upper] = r;
  }
  const stiffness = rd.num(t, cls, 'stiffness', 'tendon') ?? 0;
  const damping = rd.num(t, cls, 'damping', 'tendon') ?? 0;
  if (stiffness < 0 || damping < 0) throw elError(t, `tendon '${label}': stiffness and damping must be ≥ 0`);
  const sl = rd.nums(t, cls, 'springlength', 'tendon') ?? [-1, -1];
  let spring_lower = sl[0] ?? -1;
  let spring_upper = sl[1] ?? spring_lower;
  if (spring_lower === -1 && spring_upper === -1) {
    spring_lower = spring_upper = authoredLength(path, authored);
    if (stiffness !== 0 && ctx.springrefJoints.length)
      log.warn(
        `tendon '${label}': its rest length is the length at the authored pose (MuJoCo's at the joints' springref: ${ctx.springrefJoints.join(', ')})`,
      );
  }
  return ctx.b.addSpatialTendon({
    label,
    path,
    lower,
    upper,
    stiffness,
    damping,
    spring_lower,
    spring_upper,
  });
}

/** the path's length with its sites at their authored world positions */
function authoredLength(path: readonly ({ divisor: number } | object)[], world: (number[] | null)[]): number {
  let l = 0,
    scale = 1;
  for (let k = 0; k < path.length; k++) {
    const e = path[k];
    if ('divisor' in e) {
      scale = 1 / e.divisor;
      continue;
    }
    const a = world[k],
      b = world[k + 1];
    if (a && b) l += scale * Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
  }
  return l;
}

/** actuator attributes the length actuators read or that do not change the physics */
const ACTUATOR_KNOWN = new Set([
  'name',
  'class',
  'group',
  'user',
  'tendon',
  'cranksite',
  'slidersite',
  'cranklength',
  'gear',
  'ctrllimited',
  'ctrlrange',
  'forcelimited',
  'forcerange',
  'kp',
  'kv',
  'dampratio',
  'gaintype',
  'biastype',
  'gainprm',
  'biasprm',
  'dyntype',
  'timeconst',
]);

/** the actuator's force law: f = gain·ctrl + bias₀ + bias₁·L + bias₂·L̇ */
export interface LengthActuatorLaw {
  kind: 'motor' | 'position' | 'velocity';
  gain: number;
  bias: [number, number, number];
}

/**
 * Reads the transmission of an actuator with `tendon=` or `cranksite=` and adds it with its force
 * law to the builder; returns the length-actuator index, or undefined (reported) when it cannot be
 * built. `tendons`: the file's tendon names → builder spatial / fixed tendon index.
 */
export function readLengthActuator(
  ctx: MjcfTransmissionContext,
  a: XmlElement,
  name: string,
  law: LengthActuatorLaw,
  gear: number,
  ctrlrange: [number, number] | undefined,
  forcerange: [number, number] | undefined,
  tendons: ReadonlyMap<string, { spatial: boolean; index: number }>,
): number | undefined {
  const cls = a.attrs.class ?? 'main';
  const dyn = ctx.rd.attr(a, cls, 'dyntype', 'actuator') ?? 'none';
  const tc = ctx.rd.num(a, cls, 'timeconst', 'actuator') ?? 0;
  if (dyn !== 'none' || tc > 0) {
    ctx.log.unsupportedFeature(
      `actuator '${name}': activation dynamics (${dyn !== 'none' ? `dyntype="${dyn}"` : `timeconst="${tc}"`}) are not built`,
    );
    return undefined;
  }
  const notRead = Object.keys(a.attrs).filter((k) => !ACTUATOR_KNOWN.has(k));
  if (notRead.length) ctx.log.warn(`actuator '${name}': ${notRead.sort().join(', ')} not read`);
  const common = {
    label: `${ctx.prefix}${name}`,
    gear,
    gain: law.gain,
    bias: law.bias,
    ctrl_lower: ctrlrange?.[0],
    ctrl_upper: ctrlrange?.[1],
    force_lower: forcerange?.[0],
    force_upper: forcerange?.[1],
  };
  if (a.attrs.tendon !== undefined) {
    const t = tendons.get(a.attrs.tendon);
    if (!t) {
      ctx.log.unsupportedFeature(
        `actuator '${name}': tendon '${a.attrs.tendon}' was not built (or does not exist)`,
      );
      return undefined;
    }
    return ctx.b.addLengthActuator({
      ...common,
      transmission: t.spatial ? 'spatial_tendon' : 'fixed_tendon',
      tendon: t.index,
    });
  }
  const crank = ctx.site(a, a.attrs.cranksite);
  const slider = ctx.site(a, a.attrs.slidersite);
  const rod = ctx.rd.num(a, cls, 'cranklength', 'actuator');
  if (rod === undefined || !(rod > 0))
    throw elError(a, `actuator '${name}': a slider-crank needs cranklength > 0`);
  return ctx.b.addLengthActuator({
    ...common,
    transmission: 'slider_crank',
    crank_body: crank.body,
    crank_point: crank.point,
    slider_body: slider.body,
    slider_point: slider.point,
    slider_axis: slider.zaxis,
    crank_length: rod,
  });
}
