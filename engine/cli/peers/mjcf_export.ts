/**
 * An MJCF document equivalent to a SapModel (world 0), for the MuJoCo peer of `npm run bench`.
 *
 * Bodies nest as in the model; each body's pose relative to its parent is taken at the zero
 * configuration (free joints at the identity, 1-DOF joints at 0), so MuJoCo's qpos equals our
 * joint_q for 1-DOF joints (their qpos0 is 0: no `ref`), and free joints get the body's world pose
 * ({@link setMujocoState}).
 * Mass, COM and inertia are written explicitly (`<inertial>`), so both engines integrate the same
 * bodies, with their gravity compensation (`gravcomp`); geoms (plane, sphere, capsule, box, cylinder,
 * ellipsoid) carry the shape friction μ.
 * Angles are radians (`<compiler angle="radian"/>`: MJCF's default unit is degrees, which would
 * turn our hinge limits and spring references into limits of a few degrees).
 * Joint limits, armature, damping, springs (stiffness, springref) and dry friction (frictionloss) carry over; PD drives become
 * `position` actuators with kp = target_ke, kv = target_kd and the effort limit as force range.
 * Contact stiffness is left to MuJoCo's defaults (the models differ there by design); the shapes'
 * margins and speculative gaps carry over as geom `margin`/`gap`, so MuJoCo detects the contacts
 * ours detects before they touch and leaves them out of its solver until they do. Mesh shapes
 * become MJCF meshes (MuJoCo collides a mesh as its convex hull; ours collides triangle meshes per
 * triangle), visual-only
 * shapes (no COLLIDE_SHAPES flag) are left out. Ball joints are not exported.
 *
 * Equality constraints of world 0 become `<equality>` elements, exact in what they hold:
 * - coupler q(j₀) = ρ·q(j₁) + Δq [rad or m]: `<joint joint1="j₀" joint2="j₁" polycoef="Δq ρ 0 0 0">`
 *   (MuJoCo: y − y₀ = poly(x − x₀) with qpos0 y₀ = x₀ = 0); j₀ = j₁: the single-joint form,
 *   q = Δq/(1 − ρ);
 * - ball: `<connect site1 site2>` with a site at each anchor (anchor0 in body0, anchor1 in body1),
 *   since the body form takes body2's point from the qpos0 configuration, where our anchors need
 *   not coincide;
 * - weld (body1's anchor frame = body0's anchor frame ∘ relpose): `<weld body1="b₀" body2="b₁"
 *   relpose="a₀ + p_rel, q_rel (wxyz)" anchor="a₁">` (MuJoCo: body1's point relpose.pos meets
 *   body2's point anchor, and q₂ = q₁·relpose.quat) [m].
 * Body −1 is MuJoCo's `world`. Equalities on joints that are not exported (not revolute or
 * prismatic) or tying a body to itself are skipped and listed (`skipped_equalities`). Stiffness
 * and relaxation time are not carried: MuJoCo's default solref/solimp stand in for ours (near-rigid
 * for k = ∞, compliant otherwise), so the two differ in constraint softness by design.
 * Fixed tendons of world 0 (length l = Σ coef·q + offset) become `<fixed>` tendons; MuJoCo's length
 * has no offset, so the limits shift by −offset, and a side without a limit gets ±1e10 (MuJoCo's
 * range is two-sided). A tendon is limited when it has a finite limit and limit_ke > 0; the limit
 * softness is MuJoCo's default. Tendons on joints that are not exported are skipped and listed, as
 * are spatial tendons and the actuators with a tendon or slider-crank transmission (not exported yet).
 *
 * Collision filtering carries over as far as MJCF can say it. Ours decides per shape pair (groups,
 * filter pairs, parent/child flags per joint, static bodies: collision/filter.ts); MuJoCo per body
 * pair, and never within one weld (bodies joined by fixed joints). So MuJoCo's own parent/child
 * filter is switched off (`filterparent`), a shape of collision group 0 gets contype = conaffinity =
 * 0, and two welds none of whose shape pairs collide in ours are excluded (`<exclude>` for every
 * pair of their bodies). Two welds with some shape pairs filtered and others not are excluded too,
 * and the shape pairs of theirs that collide in ours become explicit `<pair>`s.
 */
import { makePairFilter, pairAllowed } from '../../collision/filter';
import { shapeMaterialFallback } from '../../collision/material';
import { forwardKinematics, makeKinematicsData } from '../../kinematics';
import { EqualityType, JointType, ShapeFlags, ShapeType, type SapModel } from '../../model';
import type { SapState } from '../../state';
import { hasJointFriction } from '../../pipeline/joint_constraints';

export interface MjcfExport {
  xml: string;
  /** our joint index of each MuJoCo joint id (XML order) */
  joints: number[];
  /** our DOF driven by each MuJoCo actuator id */
  actuatorDof: number[];
  /** body pairs written as `<exclude>` (shape pairs that never collide in ours) */
  excluded_body_pairs: number;
  /**
   * shape pairs written as `<pair>`: those that collide in ours between two welds that also have
   * shape pairs ours filters (excluded as a whole, since `<exclude>` works per body pair)
   */
  explicit_pairs: number;
  /** world 0's equality constraints written to `<equality>` */
  equalities: number;
  /** world 0's equality constraints left out, as 'label: reason' */
  skipped_equalities: string[];
  /** world 0's fixed tendons written to `<tendon>` */
  tendons: number;
  /** world 0's fixed tendons left out, as 'label: reason' (spatial tendons too: not exported yet) */
  skipped_tendons: string[];
  /** world 0's tendon and slider-crank actuators, not exported yet, as 'label: reason' */
  skipped_actuators: string[];
}

const f = (x: number): string => (Math.abs(x) < 1e-15 ? '0' : Number(x.toPrecision(12)).toString());
const v3 = (a: ArrayLike<number>, o: number): string => `${f(a[o])} ${f(a[o + 1])} ${f(a[o + 2])}`;

/** quaternion product a⊗b, xyzw */
function qmul(a: number[], b: number[]): number[] {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}
function qrot(q: number[], v: number[]): number[] {
  const r = qmul(qmul(q, [v[0], v[1], v[2], 0]), [-q[0], -q[1], -q[2], q[3]]);
  return [r[0], r[1], r[2]];
}
const conj = (q: number[]): number[] => [-q[0], -q[1], -q[2], q[3]];
/** MuJoCo quaternion attribute (wxyz) */
const wxyz = (q: number[]): string => `${f(q[3])} ${f(q[0])} ${f(q[1])} ${f(q[2])}`;

/** the MJCF element of body b's free, hinge or slide joint (throws for other joint types) */
function jointElement(m: SapModel, b: number): string {
  const jt = m.joint_type[b];
  const d = m.joint_qd_start[b];
  if (jt === JointType.FREE) return `<freejoint name="j${b}"/>`;
  if (jt !== JointType.REVOLUTE && jt !== JointType.PRISMATIC)
    throw new Error(`exportMjcf: joint type ${jt} is not exported`);
  const Xc = m.joint_X_c;
  const qc = [Xc[b * 7 + 3], Xc[b * 7 + 4], Xc[b * 7 + 5], Xc[b * 7 + 6]];
  const axis = qrot(qc, [m.joint_axis[b * 3], m.joint_axis[b * 3 + 1], m.joint_axis[b * 3 + 2]]);
  const lo = m.joint_limit_lower[d];
  const hi = m.joint_limit_upper[d];
  const limited = Number.isFinite(lo) && Number.isFinite(hi) && m.joint_limit_ke[d] > 0;
  const ks = m.joint_stiffness[d];
  const spring = ks !== 0 ? ` stiffness="${f(ks)}" springref="${f(m.joint_spring_ref[d])}"` : '';
  // dry friction as MuJoCo's frictionloss (ours: joint_constraints.ts)
  const fl = hasJointFriction(m, d) ? ` frictionloss="${f(m.joint_friction[d])}"` : '';
  return `<joint name="j${b}" type="${jt === JointType.REVOLUTE ? 'hinge' : 'slide'}" pos="${v3(Xc, b * 7)}" axis="${axis.map(f).join(' ')}" armature="${f(m.joint_armature[d])}" damping="${f(m.joint_damping[d])}"${spring}${fl}${limited ? ` limited="true" range="${f(lo)} ${f(hi)}"` : ' limited="false"'}/>`;
}

export function exportMjcf(m: SapModel, dt: number, name = 'sap_export'): MjcfExport {
  const shapeMu = shapeMaterialFallback(m).mu; // friction with the default fallbacks
  const kin = makeKinematicsData(m);
  const q0 = new Float64Array(m.joint_coord_count);
  for (let j = 0; j < m.joint_count; j++) {
    if (m.joint_type[j] === JointType.FREE) q0[m.joint_q_start[j] + 6] = 1;
    if (m.joint_type[j] === JointType.BALL) q0[m.joint_q_start[j] + 3] = 1;
  }
  forwardKinematics(m, q0, kin);
  const pose = (b: number): { p: number[]; q: number[] } => ({
    p: [kin.body_X[b * 7], kin.body_X[b * 7 + 1], kin.body_X[b * 7 + 2]],
    q: [kin.body_X[b * 7 + 3], kin.body_X[b * 7 + 4], kin.body_X[b * 7 + 5], kin.body_X[b * 7 + 6]],
  });
  const children: number[][] = Array.from({ length: m.body_count + 1 }, () => []);
  for (let b = 0; b < m.body_count; b++) {
    if (m.body_world[b] !== 0) continue;
    children[m.joint_parent[b] + 1].push(b);
  }
  // meshes used by exported geoms (MuJoCo collides a mesh as its convex hull)
  const meshAssets = new Map<string, { name: string; mesh: number; scale: string }>();
  const meshAsset = (k: number, scale: string): string => {
    const key = `${k} ${scale}`;
    let a = meshAssets.get(key);
    if (!a) {
      a = { name: `mesh${meshAssets.size}`, mesh: k, scale };
      meshAssets.set(key, a);
    }
    return a.name;
  };
  const meshXml = (a: { name: string; mesh: number; scale: string }): string => {
    const v0 = m.mesh_vertex_start[a.mesh];
    const v1 = m.mesh_vertex_start[a.mesh + 1];
    const t0 = m.mesh_triangle_start[a.mesh];
    const t1 = m.mesh_triangle_start[a.mesh + 1];
    const vs: string[] = [];
    for (let k = 3 * v0; k < 3 * v1; k++) vs.push(f(m.mesh_vertices[k]));
    const fs: number[] = [];
    for (let k = 3 * t0; k < 3 * t1; k++) fs.push(m.mesh_triangles[k]);
    return `    <mesh name="${a.name}" scale="${a.scale}" inertia="convex" vertex="${vs.join(' ')}" face="${fs.join(' ')}"/>\n`;
  };
  // the shapes exported as geoms: world 0's and the shared ones (world −1), except visual-only
  // shapes (no collision in our model, nothing to export: mass is explicit)
  const exported = (g: number): boolean => {
    const b = m.shape_body[g];
    if (b >= 0 ? m.body_world[b] !== 0 : m.shape_world[g] > 0) return false;
    return (m.shape_flags[g] & ShapeFlags.COLLIDE_SHAPES) !== 0;
  };
  const geoms = (b: number, indent: string): string => {
    let s = '';
    for (let g = 0; g < m.shape_count; g++) {
      if (m.shape_body[g] !== b || !exported(g)) continue;
      const X = m.shape_X_bs;
      const pos = v3(X, g * 7);
      const quat = wxyz([X[g * 7 + 3], X[g * 7 + 4], X[g * 7 + 5], X[g * 7 + 6]]);
      const sz = m.shape_size;
      const mu = shapeMu[g];
      let type: string;
      let size: string;
      let extra = '';
      switch (m.shape_type[g]) {
        case ShapeType.MESH:
        case ShapeType.CONVEX_MESH:
          type = 'mesh';
          size = '';
          extra = ` mesh="${meshAsset(m.shape_mesh[g], v3(sz, g * 3))}"`;
          break;
        case ShapeType.PLANE:
          type = 'plane';
          size = `${f(sz[g * 3]) === '0' ? 0 : f(sz[g * 3])} ${f(sz[g * 3 + 1])} 1`;
          break;
        case ShapeType.SPHERE:
          type = 'sphere';
          size = f(sz[g * 3]);
          break;
        case ShapeType.CAPSULE:
          type = 'capsule';
          size = `${f(sz[g * 3])} ${f(sz[g * 3 + 1])}`;
          break;
        case ShapeType.CYLINDER:
          type = 'cylinder';
          size = `${f(sz[g * 3])} ${f(sz[g * 3 + 1])}`;
          break;
        case ShapeType.BOX:
          type = 'box';
          size = v3(sz, g * 3);
          break;
        case ShapeType.ELLIPSOID:
          type = 'ellipsoid';
          size = v3(sz, g * 3);
          break;
        default:
          throw new Error(`exportMjcf: shape type ${m.shape_type[g]} is not exported`);
      }
      const sizeAttr = size ? ` size="${size}"` : '';
      // collision group 0: collides with nothing in ours
      const none = m.shape_collision_group[g] === 0 ? ' contype="0" conaffinity="0"' : '';
      s += `${indent}<geom name="g${g}" type="${type}"${sizeAttr}${extra} pos="${pos}" quat="${quat}" friction="${f(mu)} 0.005 0.0001"${none}${marginAttrs(m.shape_margin[g], m.shape_gap[g])}/>\n`;
    }
    return s;
  };
  // equalities (and the sites of ball constraints, written into their bodies) and tendons
  const eq = equalities(m);
  const ten = tendons(m);
  const joints: number[] = [];
  const act: { j: number; dof: number }[] = [];
  // bodies an equality names (welds name bodies; ball equalities put sites in them)
  const eqBodies = new Set<number>();
  for (let e = 0; e < m.eq_count; e++) eqBodies.add(m.eq_body0[e]).add(m.eq_body1[e]);
  /**
   * the child a massless body merges with, or −1: MuJoCo refuses a moving body without mass, and
   * our importers split an MJCF body of several joints into a chain of 1-DOF joints through
   * massless bodies at the same frame (the child at the identity). Such a body with no exported
   * geom, no equality and one child becomes that child's joint: MJCF joints of one body act in
   * order, each about its axis in the frame the ones before it moved, as the chain does.
   */
  const mergeChild = (b: number): number => {
    if (m.body_mass[b] > 0 || eqBodies.has(b) || geoms(b, '') !== '') return -1;
    const jt = m.joint_type[b];
    if (jt !== JointType.REVOLUTE && jt !== JointType.PRISMATIC) return -1;
    const kids = children[b + 1];
    if (kids.length !== 1) return -1;
    const c = kids[0];
    const jc = m.joint_type[c];
    if (jc !== JointType.REVOLUTE && jc !== JointType.PRISMATIC && mergeChild(c) < 0) return -1;
    const X = pose(b),
      C = pose(c);
    const dp = Math.hypot(C.p[0] - X.p[0], C.p[1] - X.p[1], C.p[2] - X.p[2]);
    const dot = Math.abs(X.q[0] * C.q[0] + X.q[1] * C.q[1] + X.q[2] * C.q[2] + X.q[3] * C.q[3]);
    return dp < 1e-12 && dot > 1 - 1e-12 ? c : -1;
  };
  /** the joint element of body b's joint ('' for a fixed joint), recorded in the joint and actuator lists */
  const jointXml = (b: number, indent: string): string => {
    const jt = m.joint_type[b];
    const d = m.joint_qd_start[b];
    if (jt === JointType.FIXED) return '';
    joints.push(b);
    if (jt !== JointType.FREE && (m.joint_target_ke[d] > 0 || m.joint_target_kd[d] > 0))
      act.push({ j: b, dof: d });
    return `${indent}  ${jointElement(m, b)}\n`;
  };
  /** body b's joint, then (merged) its child's contents, or its own inertial, geoms, sites, children */
  const bodyContents = (b: number, indent: string): { last: number; xml: string } => {
    let s = jointXml(b, indent);
    const c = mergeChild(b);
    if (c >= 0) {
      const inner = bodyContents(c, indent);
      return { last: inner.last, xml: s + inner.xml };
    }
    const I = m.body_inertia;
    const mass = m.body_mass[b];
    if (mass > 0) {
      s += `${indent}  <inertial pos="${v3(m.body_com, b * 3)}" mass="${f(mass)}" fullinertia="${f(I[b * 9])} ${f(I[b * 9 + 4])} ${f(I[b * 9 + 8])} ${f(I[b * 9 + 1])} ${f(I[b * 9 + 2])} ${f(I[b * 9 + 5])}"/>\n`;
    }
    s += geoms(b, indent + '  ');
    for (const site of eq.sites.get(b) ?? []) s += `${indent}  ${site}`;
    for (const k of children[b + 1]) s += body(k, indent + '  ');
    return { last: b, xml: s };
  };
  const body = (b: number, indent: string): string => {
    const p = m.joint_parent[b];
    const X = pose(b);
    let rel = X;
    if (p >= 0) {
      const P = pose(p);
      const iq = conj(P.q);
      rel = { p: qrot(iq, [X.p[0] - P.p[0], X.p[1] - P.p[1], X.p[2] - P.p[2]]), q: qmul(iq, X.q) };
    }
    // a merged chain takes the name (and gravity compensation) of its last body, whose frame it is
    const inner = bodyContents(b, indent);
    const gcomp = m.body_gravcomp[inner.last];
    const gc = gcomp !== 0 ? ` gravcomp="${f(gcomp)}"` : '';
    return (
      `${indent}<body name="b${inner.last}" pos="${rel.p.map(f).join(' ')}" quat="${wxyz(rel.q)}"${gc}>\n` +
      inner.xml +
      `${indent}</body>\n`
    );
  };
  let world = geoms(-1, '    ');
  for (const site of eq.sites.get(-1) ?? []) world += `    ${site}`;
  for (const b of children[0]) world += body(b, '    ');
  let acts = '';
  for (const a of act) {
    const e = m.joint_effort_limit[a.dof];
    const fr = Number.isFinite(e) && e > 0 ? ` forcelimited="true" forcerange="${f(-e)} ${f(e)}"` : '';
    acts += `    <position joint="j${a.j}" kp="${f(m.joint_target_ke[a.dof])}" kv="${f(m.joint_target_kd[a.dof])}"${fr}/>\n`;
  }
  const filter = collisionFilter(m, exported);
  const g = m.gravity;
  const xml =
    `<mujoco model="${name}">\n  <compiler angle="radian"/>\n  <option timestep="${f(dt)}" gravity="${v3(g, 0)}">\n    <flag filterparent="disable"/>\n  </option>\n` +
    (meshAssets.size ? `  <asset>\n${[...meshAssets.values()].map(meshXml).join('')}  </asset>\n` : '') +
    `  <worldbody>\n${world}  </worldbody>\n` +
    (filter.xml ? `  <contact>\n${filter.xml}  </contact>\n` : '') +
    (eq.xml ? `  <equality>\n${eq.xml}  </equality>\n` : '') +
    (ten.xml ? `  <tendon>\n${ten.xml}  </tendon>\n` : '') +
    (acts ? `  <actuator>\n${acts}  </actuator>\n` : '') +
    '</mujoco>\n';
  return {
    xml,
    joints,
    actuatorDof: act.map((a) => a.dof),
    excluded_body_pairs: filter.excluded,
    explicit_pairs: filter.explicit,
    equalities: eq.written,
    skipped_equalities: eq.skipped,
    tendons: ten.written,
    skipped_tendons: [
      ...ten.skipped,
      ...m.spatial_label
        .filter((_, t) => m.spatial_world[t] === 0)
        .map((l) => `${l}: spatial tendons are not exported`),
    ],
    skipped_actuators: m.actuator_label
      .filter((_, a) => m.actuator_world[a] === 0)
      .map((l) => `${l}: tendon and slider-crank actuators are not exported`),
  };
}

/** whether joint j is exported as a MuJoCo scalar joint (world 0, revolute or prismatic) */
function scalarJoint(m: SapModel, j: number): boolean {
  if (!(j >= 0 && j < m.joint_count) || m.joint_world[j] !== 0) return false;
  return m.joint_type[j] === JointType.REVOLUTE || m.joint_type[j] === JointType.PRISMATIC;
}

/**
 * World 0's equality constraints as `<equality>` elements (see the module comment), and the sites
 * the ball constraints anchor to, by body (−1: the worldbody), each a line without its indent.
 */
function equalities(m: SapModel): {
  xml: string;
  sites: Map<number, string[]>;
  written: number;
  skipped: string[];
} {
  const sites = new Map<number, string[]>();
  const addSite = (b: number, name: string, a: ArrayLike<number>, o: number): void => {
    const line = `<site name="${name}" pos="${v3(a, o)}"/>\n`;
    const list = sites.get(b);
    if (list) list.push(line);
    else sites.set(b, [line]);
  };
  const bodyName = (b: number): string => (b < 0 ? 'world' : `b${b}`);
  const bodyOk = (b: number): boolean => b === -1 || (b >= 0 && b < m.body_count && m.body_world[b] === 0);
  let xml = '';
  let written = 0;
  const skipped: string[] = [];
  for (let e = 0; e < m.eq_count; e++) {
    if (m.eq_world[e] !== 0) continue;
    const label = m.eq_label[e];
    const type = m.eq_type[e];
    if (type === EqualityType.COUPLER) {
      const j0 = m.eq_joint0[e],
        j1 = m.eq_joint1[e];
      if (!scalarJoint(m, j0) || !scalarJoint(m, j1)) {
        skipped.push(`${label}: coupler on a joint that is not exported (revolute or prismatic)`);
        continue;
      }
      const ratio = m.eq_ratio[e],
        offset = m.eq_offset[e];
      if (j0 === j1) {
        // q = ρ·q + Δq: the joint held at Δq/(1 − ρ) (MuJoCo's single-joint form, y − y₀ = a₀)
        if (ratio === 1) {
          skipped.push(`${label}: coupler of a joint with itself at ratio 1`);
          continue;
        }
        xml += `    <joint name="eq${e}" joint1="j${j0}" polycoef="${f(offset / (1 - ratio))} 0 0 0 0"/>\n`;
      } else {
        xml += `    <joint name="eq${e}" joint1="j${j0}" joint2="j${j1}" polycoef="${f(offset)} ${f(ratio)} 0 0 0"/>\n`;
      }
      written++;
      continue;
    }
    const b0 = m.eq_body0[e],
      b1 = m.eq_body1[e];
    if (!bodyOk(b0) || !bodyOk(b1)) {
      skipped.push(`${label}: body outside world 0`);
      continue;
    }
    if (b0 === b1) {
      skipped.push(`${label}: both sides on ${b0 < 0 ? 'the world' : `body ${b0}`}`);
      continue;
    }
    if (type === EqualityType.BALL) {
      // site form: both anchors as given (the body form would take body2's point from qpos0)
      addSite(b0, `eq${e}_0`, m.eq_anchor0, e * 3);
      addSite(b1, `eq${e}_1`, m.eq_anchor1, e * 3);
      xml += `    <connect name="eq${e}" site1="eq${e}_0" site2="eq${e}_1"/>\n`;
    } else if (type === EqualityType.WELD) {
      // X_W1·A₁ = X_W0·A₀·R (A: the anchor translations, R = relpose): body0's point a₀ + p_R meets
      // body1's point a₁, and q₁ = q₀·q_R
      const R = m.eq_relpose;
      const a0 = m.eq_anchor0;
      const pos = [a0[e * 3] + R[e * 7], a0[e * 3 + 1] + R[e * 7 + 1], a0[e * 3 + 2] + R[e * 7 + 2]];
      const quat = wxyz([R[e * 7 + 3], R[e * 7 + 4], R[e * 7 + 5], R[e * 7 + 6]]);
      xml += `    <weld name="eq${e}" body1="${bodyName(b0)}" body2="${bodyName(b1)}" relpose="${pos.map(f).join(' ')} ${quat}" anchor="${v3(m.eq_anchor1, e * 3)}"/>\n`;
    } else {
      skipped.push(`${label}: equality type ${type} is not exported`);
      continue;
    }
    written++;
  }
  return { xml, sites, written, skipped };
}

/** the bound written for a tendon limit's open side (MuJoCo's tendon range is two-sided) */
const OPEN_LIMIT = 1e10;

/** World 0's fixed tendons as `<fixed>` elements (see the module comment). */
function tendons(m: SapModel): { xml: string; written: number; skipped: string[] } {
  let xml = '';
  let written = 0;
  const skipped: string[] = [];
  for (let t = 0; t < m.tendon_count; t++) {
    if (m.tendon_world[t] !== 0) continue;
    const label = m.tendon_label[t];
    const k0 = m.tendon_adr[t],
      k1 = m.tendon_adr[t + 1];
    if (k1 === k0) {
      skipped.push(`${label}: no joints`);
      continue;
    }
    let ok = true;
    for (let k = k0; k < k1; k++) ok &&= scalarJoint(m, m.tendon_joint[k]);
    if (!ok) {
      skipped.push(`${label}: tendon on a joint that is not exported (revolute or prismatic)`);
      continue;
    }
    // MuJoCo's length Σ coef·qpos lacks our offset: l ≥ lo ⇔ Σ coef·q ≥ lo − offset
    const off = m.tendon_offset[t];
    const lo = m.tendon_lower[t],
      hi = m.tendon_upper[t];
    const limited = (Number.isFinite(lo) || Number.isFinite(hi)) && m.tendon_limit_ke[t] > 0;
    const range = limited
      ? ` limited="true" range="${Number.isFinite(lo) ? f(lo - off) : f(-OPEN_LIMIT)} ${Number.isFinite(hi) ? f(hi - off) : f(OPEN_LIMIT)}"`
      : ' limited="false"';
    xml += `    <fixed name="t${t}"${range}>\n`;
    for (let k = k0; k < k1; k++)
      xml += `      <joint joint="j${m.tendon_joint[k]}" coef="${f(m.tendon_coef[k])}"/>\n`;
    xml += '    </fixed>\n';
    written++;
  }
  return { xml, written, skipped };
}

/**
 * The `margin` and `gap` attributes of a geom or a pair ('' when both are 0). Ours reports a contact
 * of two shapes below a distance of their summed margins (surface offsets) plus their summed gaps
 * (the speculative band) and lets it act below the summed margins. MuJoCo (3.14, checked by the
 * export's test) sums the two geoms' values too and reports a contact below margin + gap, acting
 * only below margin: the same bands from the same per-shape values (a `<pair>` takes the sums).
 */
function marginAttrs(margin: number, gap: number): string {
  return margin > 0 || gap > 0 ? ` margin="${f(margin)}" gap="${f(gap)}"` : '';
}

/** minimal view of MuJoCo's model/data used to transfer a state */
export interface MjStateView {
  jnt_qposadr: Int32Array;
  jnt_dofadr: Int32Array;
}
export interface MjDataView {
  qpos: Float64Array;
  qvel: Float64Array;
}

/**
 * The `<contact>` elements that make MuJoCo collide what ours collides (see the module comment): for
 * every two welds with exported colliding shapes of which ours filters some shape pair, an
 * `<exclude>` per pair of their bodies ('world' for body −1), and a `<pair>` per shape pair of
 * theirs that ours does collide.
 */
function collisionFilter(
  m: SapModel,
  exported: (g: number) => boolean,
): { xml: string; excluded: number; explicit: number } {
  const pf = makePairFilter(m);
  const shapeMu = shapeMaterialFallback(m).mu;
  // weld of each body: the body, or for a fixed joint its parent's weld (−1: the world)
  const weld = new Int32Array(m.body_count);
  for (let b = 0; b < m.body_count; b++) {
    const p = m.joint_parent[b];
    weld[b] = m.joint_type[b] === JointType.FIXED ? (p < 0 ? -1 : weld[p]) : b;
  }
  // the exported colliding shapes (group 0 collides with nothing: contype 0), by weld
  const shapesOf = new Map<number, number[]>();
  for (let g = 0; g < m.shape_count; g++) {
    if (!exported(g) || m.shape_collision_group[g] === 0) continue;
    const w = m.shape_body[g] < 0 ? -1 : weld[m.shape_body[g]];
    const list = shapesOf.get(w);
    if (list) list.push(g);
    else shapesOf.set(w, [g]);
  }
  const bodyName = (b: number): string => (b < 0 ? 'world' : `b${b}`);
  const welds = [...shapesOf.keys()].sort((x, y) => x - y);
  const allowed: number[] = [];
  let xml = '';
  let excluded = 0;
  let explicit = 0;
  // every two welds (MuJoCo never collides within one): their shape pairs that collide in ours
  for (let i = 0; i < welds.length; i++) {
    const sa = shapesOf.get(welds[i])!;
    for (let k = i + 1; k < welds.length; k++) {
      const sb = shapesOf.get(welds[k])!;
      allowed.length = 0;
      for (const g0 of sa) for (const g1 of sb) if (pairAllowed(pf, g0, g1)) allowed.push(g0, g1);
      if (allowed.length === 2 * sa.length * sb.length) continue;
      const ba = new Set(sa.map((g) => m.shape_body[g]));
      const bb = new Set(sb.map((g) => m.shape_body[g]));
      for (const b0 of ba) {
        for (const b1 of bb) {
          xml += `    <exclude body1="${bodyName(b0)}" body2="${bodyName(b1)}"/>\n`;
          excluded++;
        }
      }
      // the shape pairs of theirs that collide in ours as explicit pairs (MuJoCo checks a <pair>
      // whatever the exclusions), with the friction MuJoCo would mix for them (the larger)
      for (let x = 0; x < allowed.length; x += 2) {
        const g0 = allowed[x],
          g1 = allowed[x + 1];
        const mu = f(Math.max(shapeMu[g0], shapeMu[g1]));
        const mg = marginAttrs(m.shape_margin[g0] + m.shape_margin[g1], m.shape_gap[g0] + m.shape_gap[g1]);
        xml += `    <pair geom1="g${g0}" geom2="g${g1}" friction="${mu} ${mu} 0.005 0.0001 0.0001"${mg}/>\n`;
        explicit++;
      }
    }
  }
  return { xml, excluded, explicit };
}

/**
 * Writes our state into MuJoCo's qpos/qvel for an {@link exportMjcf} model: free joints get the
 * body's world pose and [v of the body origin (world); ω (body frame)], 1-DOF joints copy q, q̇.
 */
export function setMujocoState(
  m: SapModel,
  st: SapState,
  exp: MjcfExport,
  mm: MjStateView,
  d: MjDataView,
): void {
  const qpos = d.qpos;
  const qvel = d.qvel;
  for (let k = 0; k < exp.joints.length; k++) {
    const j = exp.joints[k];
    const qa = mm.jnt_qposadr[k];
    const va = mm.jnt_dofadr[k];
    if (m.joint_type[j] === JointType.FREE) {
      const b = j;
      const X = st.body_q;
      const q = [X[b * 7 + 3], X[b * 7 + 4], X[b * 7 + 5], X[b * 7 + 6]];
      qpos[qa] = X[b * 7];
      qpos[qa + 1] = X[b * 7 + 1];
      qpos[qa + 2] = X[b * 7 + 2];
      qpos[qa + 3] = q[3];
      qpos[qa + 4] = q[0];
      qpos[qa + 5] = q[1];
      qpos[qa + 6] = q[2];
      const V = st.body_qd;
      const w = [V[b * 6 + 3], V[b * 6 + 4], V[b * 6 + 5]];
      const c = qrot(q, [m.body_com[b * 3], m.body_com[b * 3 + 1], m.body_com[b * 3 + 2]]);
      // v_origin = v_com + ω × (origin − com) = v_com − ω × c
      qvel[va] = V[b * 6] - (w[1] * c[2] - w[2] * c[1]);
      qvel[va + 1] = V[b * 6 + 1] - (w[2] * c[0] - w[0] * c[2]);
      qvel[va + 2] = V[b * 6 + 2] - (w[0] * c[1] - w[1] * c[0]);
      const wl = qrot(conj(q), w);
      qvel[va + 3] = wl[0];
      qvel[va + 4] = wl[1];
      qvel[va + 5] = wl[2];
    } else {
      qpos[qa] = st.joint_q[m.joint_q_start[j]];
      qvel[va] = st.joint_qd[m.joint_qd_start[j]];
    }
  }
}
