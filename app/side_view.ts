/** a 2D side view (x right, z up) of shape outlines, each drawn as its projected oriented box */
import type { SceneInfo } from '../engine/worker/protocol';

const PLANE = 0,
  SPHERE = 1,
  CAPSULE = 2,
  BOX = 3;

function rotate(q: ArrayLike<number>, o: number, v: number[]): number[] {
  const [x, y, z, w] = [q[o], q[o + 1], q[o + 2], q[o + 3]];
  const [vx, vy, vz] = v;
  const tx = 2 * (y * vz - z * vy),
    ty = 2 * (z * vx - x * vz),
    tz = 2 * (x * vy - y * vx);
  return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
}

function halfExtents(type: number, size: number[]): number[] {
  if (type === SPHERE) return [size[0], size[0], size[0]];
  if (type === BOX) return size;
  if (type === CAPSULE) return [size[0], size[0], size[1] + size[0]];
  return [size[0], size[0], size[1]];
}

export function drawSideView(ctx: CanvasRenderingContext2D, scene: SceneInfo, poses: Float32Array): void {
  const W = ctx.canvas.width,
    H = ctx.canvas.height;
  ctx.fillStyle = '#0f1115';
  ctx.fillRect(0, 0, W, H);
  const scale = 160,
    ox = W / 2,
    oz = H - 60;
  ctx.strokeStyle = '#555';
  ctx.beginPath();
  ctx.moveTo(0, oz);
  ctx.lineTo(W, oz);
  ctx.stroke();
  for (const s of scene.shapes) {
    if (s.type === PLANE) continue;
    const pose = s.body >= 0 ? Array.from(poses.subarray(s.body * 7, s.body * 7 + 7)) : [0, 0, 0, 0, 0, 0, 1];
    const local = rotate(pose, 3, s.X_bs.slice(0, 3));
    const c = [pose[0] + local[0], pose[1] + local[1], pose[2] + local[2]];
    // shape orientation = body ⊗ shape
    const [ax, ay, az, aw] = pose.slice(3);
    const [bx, by, bz, bw] = s.X_bs.slice(3);
    const q = [
      aw * bx + ax * bw + ay * bz - az * by,
      aw * by - ax * bz + ay * bw + az * bx,
      aw * bz + ax * by - ay * bx + az * bw,
      aw * bw - ax * bx - ay * by - az * bz,
    ];
    const h = halfExtents(s.type, s.size);
    ctx.fillStyle = `rgb(${s.color.map((x) => Math.round(x * 255)).join(',')})`;
    if (s.type === SPHERE) {
      ctx.beginPath();
      ctx.arc(ox + c[0] * scale, oz - c[2] * scale, h[0] * scale, 0, 2 * Math.PI);
      ctx.fill();
      continue;
    }
    const corners = [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ].map(([sx, sz]) => {
      const d = rotate(q, 0, [sx * h[0], 0, sz * h[2]]);
      return [ox + (c[0] + d[0]) * scale, oz - (c[2] + d[2]) * scale];
    });
    ctx.beginPath();
    ctx.moveTo(corners[0][0], corners[0][1]);
    for (const p of corners.slice(1)) ctx.lineTo(p[0], p[1]);
    ctx.closePath();
    ctx.fill();
  }
}
