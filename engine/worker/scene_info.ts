/**
 * SceneInfo: the render-side description of a loaded model (shapes, meshes, heightfields, bodies,
 * display offsets for replicated worlds, bounds and drivable DOFs), built once per load.
 */
import type { ControlSequence } from '../state/control_sequence';
import { transformMul, transformPoint } from '../math';

const ORIGIN = new Float64Array(3);
import { JOINT_TYPE_NAMES, ShapeType, type SapModel } from '../model';
import type { DofInfo, MeshInfo, SceneInfo, ShapeInfo } from './protocol';

/** a bounding radius of a shape around its frame origin [m] */
function shapeRadius(m: SapModel, s: number): number {
  const sz = m.shape_size;
  const a = sz[s * 3],
    b = sz[s * 3 + 1],
    c = sz[s * 3 + 2];
  switch (m.shape_type[s]) {
    case ShapeType.SPHERE:
      return a;
    case ShapeType.CAPSULE:
      return a + b;
    case ShapeType.CYLINDER:
    case ShapeType.CONE:
      return Math.hypot(a, b);
    case ShapeType.BOX:
      return Math.hypot(a, b, c);
    case ShapeType.ELLIPSOID:
      return Math.max(a, b, c);
    case ShapeType.MESH:
    case ShapeType.CONVEX_MESH: {
      const mi = m.shape_mesh?.[s] ?? -1;
      if (mi < 0) return 0.1;
      let r = 0;
      const v = m.mesh_vertices;
      for (let i = m.mesh_vertex_start[mi]; i < m.mesh_vertex_start[mi + 1]; i++) {
        r = Math.max(r, Math.hypot(v[i * 3] * a, v[i * 3 + 1] * b, v[i * 3 + 2] * c));
      }
      return r;
    }
    default:
      return 0;
  }
}

/** the description sent with `ready`; `body_q` are the initial body poses */
export function buildSceneInfo(
  m: SapModel,
  body_q: Float64Array,
  meta: {
    name: string;
    file_name: string;
    description: string;
    dt: number;
    contact_capacity: number;
    warnings: string[];
    notes: string[];
    keyframes: string[];
    keyframe: string | null;
    /** the scene's control sequence, when it has one */
    control_sequence?: ControlSequence;
  },
): SceneInfo {
  const shapes: ShapeInfo[] = [];
  for (let s = 0; s < m.shape_count; s++) {
    shapes.push({
      type: m.shape_type[s],
      body: m.shape_body[s],
      world: m.shape_world[s],
      size: Array.from(m.shape_size.subarray(s * 3, s * 3 + 3)),
      X_bs: Array.from(m.shape_X_bs.subarray(s * 7, s * 7 + 7)),
      color: Array.from(m.shape_color.subarray(s * 3, s * 3 + 3)),
      flags: m.shape_flags[s],
      mesh: m.shape_mesh?.[s] ?? -1,
      hfield: m.shape_hfield?.[s] ?? -1,
      label: m.shape_label[s] ?? '',
    });
  }
  const meshes: MeshInfo[] = [];
  for (let k = 0; k < (m.mesh_count ?? 0); k++) {
    const v0 = m.mesh_vertex_start[k],
      v1 = m.mesh_vertex_start[k + 1];
    const t0 = m.mesh_triangle_start[k],
      t1 = m.mesh_triangle_start[k + 1];
    meshes.push({
      label: m.mesh_label[k] ?? `mesh${k}`,
      vertices: Float32Array.from(m.mesh_vertices.subarray(v0 * 3, v1 * 3)),
      triangles: Uint32Array.from(m.mesh_triangles.subarray(t0 * 3, t1 * 3)),
      uv: m.mesh_uv[k] ?? undefined,
      texture: m.mesh_texture[k] ?? -1,
    });
  }
  const hfields = [];
  for (let k = 0; k < (m.hfield_count ?? 0); k++) {
    hfields.push({
      nrow: m.hfield_nrow[k],
      ncol: m.hfield_ncol[k],
      size: Array.from(m.hfield_size.subarray(k * 4, k * 4 + 4)),
      data: Float32Array.from(m.hfield_data.subarray(m.hfield_data_start[k], m.hfield_data_start[k + 1])),
    });
  }

  // bounds of world 0 (and static non-plane geometry) at the initial poses
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  const pose = new Float64Array(7);
  const c = new Float64Array(3);
  const worldCenter: number[][] = Array.from({ length: m.num_worlds }, () => [0, 0, 0, 0]);
  for (let s = 0; s < m.shape_count; s++) {
    const t = m.shape_type[s];
    if (t === ShapeType.PLANE || t === ShapeType.HEIGHTFIELD) continue;
    const b = m.shape_body[s];
    if (b >= 0) transformMul(body_q, b * 7, m.shape_X_bs, s * 7, pose, 0);
    else pose.set(m.shape_X_bs.subarray(s * 7, s * 7 + 7));
    transformPoint(pose, 0, ORIGIN, 0, c, 0);
    const w = b >= 0 ? m.body_world[b] : -1;
    if (w >= 0) {
      const wc = worldCenter[w];
      wc[0] += c[0];
      wc[1] += c[1];
      wc[2] += c[2];
      wc[3]++;
    }
    if (w > 0) continue;
    const r = shapeRadius(m, s);
    for (let i = 0; i < 3; i++) {
      lo[i] = Math.min(lo[i], c[i] - r);
      hi[i] = Math.max(hi[i], c[i] + r);
    }
  }
  if (!Number.isFinite(lo[0])) {
    lo.splice(0, 3, -1, -1, 0);
    hi.splice(0, 3, 1, 1, 1);
  }

  // replicas that overlap are drawn side by side on a grid; authored spacing is kept as is
  const world_offset = Array.from({ length: m.num_worlds }, () => [0, 0, 0]);
  if (m.num_worlds > 1) {
    const ctr = worldCenter.map((wc) =>
      wc[3] > 0 ? [wc[0] / wc[3], wc[1] / wc[3], wc[2] / wc[3]] : [0, 0, 0],
    );
    const extent = Math.max(hi[0] - lo[0], hi[1] - lo[1], 0.2);
    const overlap = ctr.every(
      (p) => Math.hypot(p[0] - ctr[0][0], p[1] - ctr[0][1], p[2] - ctr[0][2]) < 1e-6 * (1 + extent),
    );
    if (overlap) {
      const cols = Math.ceil(Math.sqrt(m.num_worlds));
      const spacing = extent * 1.6 + 0.2;
      for (let w = 0; w < m.num_worlds; w++) {
        const row = Math.floor(w / cols),
          col = w % cols;
        world_offset[w] = [
          (col - (cols - 1) / 2) * spacing,
          (row - (Math.ceil(m.num_worlds / cols) - 1) / 2) * spacing,
          0,
        ];
      }
    }
  }

  const dofs: DofInfo[] = [];
  const j1 = m.world_joint_start?.[1] ?? m.joint_count;
  for (let j = 0; j < j1; j++) {
    const d0 = m.joint_qd_start[j],
      d1 = m.joint_qd_start[j + 1];
    const q0 = m.joint_q_start[j];
    for (let d = d0; d < d1; d++) {
      // only 1-DOF joints are offered for control (revolute, prismatic)
      if (d1 - d0 !== 1) continue;
      dofs.push({
        dof: d,
        label: m.joint_label[j] ?? `joint${j}`,
        lower: m.joint_limit_lower[d],
        upper: m.joint_limit_upper[d],
        driven: m.joint_target_ke[d] > 0 || m.joint_target_kd[d] > 0,
        target: m.joint_target_pos[d] ?? m.joint_q0[q0],
      });
    }
  }

  const per = m.world_joint_start ? m.world_joint_start[1] - m.world_joint_start[0] : m.body_count;
  return {
    name: meta.name,
    file_name: meta.file_name,
    description: meta.description,
    dt: meta.dt,
    num_worlds: m.num_worlds,
    body_count: m.body_count,
    bodies_per_world: per,
    body_label: [...m.body_label],
    body_world: Array.from(m.body_world),
    body_mass: Array.from(m.body_mass),
    shapes,
    meshes,
    textures: m.textures.map((t) => ({ label: t.label, mime: t.mime, bytes: t.bytes })),
    hfields,
    world_offset,
    bounds: { min: lo, max: hi },
    dofs,
    joint_type: Array.from(m.joint_type, (t) => JOINT_TYPE_NAMES[t] ?? String(t)),
    joint_label: Array.from({ length: m.joint_count }, (_, j) => m.joint_label[j] ?? `joint${j}`),
    joint_q_start: Array.from(m.joint_q_start),
    joint_qd_start: Array.from(m.joint_qd_start),
    dof_friction: Array.from(m.joint_friction),
    dof_effort_limit: Array.from(m.joint_effort_limit),
    contact_capacity: meta.contact_capacity,
    warnings: meta.warnings,
    notes: meta.notes,
    keyframes: meta.keyframes,
    keyframe: meta.keyframe,
    control_sequence: meta.control_sequence
      ? {
          name: meta.control_sequence.name,
          source: meta.control_sequence.source,
          duration: meta.control_sequence.duration,
          loop: meta.control_sequence.loop,
          keyframes: meta.control_sequence.keyframes.map((k) => ({ time: k.time, label: k.label })),
        }
      : null,
    joint_parent: Array.from(m.joint_parent),
  };
}
