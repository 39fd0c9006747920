/** human-readable renderings of the CLI outputs */
import type { AblateOutput, InspectOutput, RunOutput } from './schema';

const f = (x: number, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const v3 = (v: readonly number[]) => `(${v.map((x) => f(x)).join(', ')})`;
const e = (x: number) => (Number.isFinite(x) ? x.toExponential(3) : String(x));

export function formatRun(o: RunOutput): string {
  const lines = [`scene ${o.scene}: ${o.steps} steps of ${o.dt} s → t = ${f(o.time)} s`];
  lines.push(
    `preset ${o.options.contact_preset_variant}, line search ${o.options.line_search_variant}; status ${o.stats.status}, ` +
      `Newton ${f(o.stats.iterations_mean, 2)} mean / ${o.stats.iterations_max} max, line search ${f(o.stats.line_search_iterations_mean, 2)} mean, ` +
      (o.options.solve_islands ? `islands ${f(o.stats.islands_mean, 1)} mean, ` : '') +
      `contacts ≤ ${o.stats.contacts_max}, truncated ${o.stats.truncated_contacts}, ${f(o.stats.wall_ms, 1)} ms`,
  );
  o.worlds.forEach((w, i) => {
    if (o.worlds.length > 1) lines.push(`world ${i}`);
    for (const b of w.bodies) {
      lines.push(
        `  ${b.name.padEnd(16)} p ${v3(b.position)}  q ${v3(b.quaternion)}  v ${v3(b.linear_velocity)}  ω ${v3(b.angular_velocity)}`,
      );
    }
    lines.push(`  joint_q  [${w.joint_q.map((x) => f(x)).join(', ')}]`);
    lines.push(`  joint_qd [${w.joint_qd.map((x) => f(x)).join(', ')}]`);
    lines.push(
      `  energy   kinetic ${f(w.kinetic_energy ?? NaN)} J, potential ${f(w.potential_energy ?? NaN)} J, change since start ${f(w.energy_change ?? NaN)} J`,
    );
    lines.push(`  contacts ${w.contacts.length}`);
    for (const c of w.contacts.slice(0, 12)) {
      lines.push(
        `    ${c.body_a} → ${c.body_b} at ${v3(c.position)} n ${v3(c.normal)} F ${v3(c.force)} φ₀ ${e(c.phi0)} ${c.state}`,
      );
    }
    if (w.contacts.length > 12) lines.push(`    … ${w.contacts.length - 12} more`);
  });
  return lines.join('\n');
}

export function formatInspect(o: InspectOutput): string {
  const lines = [`model ${o.model}: nq ${o.nq}, nv ${o.nv} (velocities in ${o.velocity_convention} order)`];
  for (const w of o.warnings) lines.push(`warning: ${w}`);
  for (const n of o.notes) lines.push(`note: ${n}`);
  lines.push('bodies:');
  for (const b of o.bodies)
    lines.push(
      `  ${b.name.padEnd(16)} mass ${f(b.mass)} com ${v3(b.com)} I diag ${v3([b.inertia[0][0], b.inertia[1][1], b.inertia[2][2]])}`,
    );
  lines.push('joints:');
  for (const j of o.joints) {
    lines.push(
      `  ${j.name.padEnd(16)} ${j.type.padEnd(9)} ${j.parent} → ${j.child} q@${j.q_start} qd@${j.qd_start} axis ${v3(j.axis)} limits [${j.lower ?? '-inf'}, ${j.upper ?? 'inf'}]`,
    );
  }
  lines.push(`q  [${o.q.map((x) => f(x)).join(', ')}]`);
  lines.push(`qd [${o.qd.map((x) => f(x)).join(', ')}]`);
  if (o.mass_matrix) {
    lines.push('mass matrix M(q):');
    for (const row of o.mass_matrix) lines.push('  ' + row.map((x) => f(x).padStart(10)).join(' '));
  } else {
    // large models: the trees' blocks, the first few in full
    const sizes = new Map<number, number>();
    for (const b of o.mass_matrix_blocks) sizes.set(b.size, (sizes.get(b.size) ?? 0) + 1);
    const list = [...sizes].map(([n, c]) => `${c} of ${n}×${n}`).join(', ');
    lines.push(
      `mass matrix M(q): block-diagonal over ${o.mass_matrix_blocks.length} trees (${list}); --dense writes it whole`,
    );
    for (const b of o.mass_matrix_blocks.slice(0, 3)) {
      lines.push(`  tree at DOF ${b.dof_start}:`);
      for (const row of b.matrix) lines.push('    ' + row.map((x) => f(x).padStart(10)).join(' '));
    }
    if (o.mass_matrix_blocks.length > 3)
      lines.push(`  … ${o.mass_matrix_blocks.length - 3} more trees (--json has them all)`);
  }
  const shown = o.bias_forces.slice(0, 60).map((x) => f(x));
  if (o.bias_forces.length > 60) shown.push(`… ${o.bias_forces.length - 60} more`);
  lines.push(`bias forces: [${shown.join(', ')}]`);
  return lines.join('\n');
}

export function formatAblate(o: AblateOutput): string {
  const lines = [
    `ablation of ${o.scene}: ${o.steps} steps of ${o.dt} s`,
    '   time      Δprecision   Δmodel       ‖Δq‖ prec    ‖Δq‖ model',
  ];
  const every = Math.max(1, Math.floor(o.steps / 20));
  for (let i = 0; i < o.steps; i += every) {
    const a = o.one_step[i],
      t = o.trajectory[i];
    lines.push(
      `  ${f(a.time, 3).padStart(7)}  ${e(a.delta_precision).padStart(11)}  ${e(a.delta_model).padStart(11)}  ${e(t.q_divergence.precision).padStart(11)}  ${e(t.q_divergence.model).padStart(11)}`,
    );
  }
  return lines.join('\n');
}
