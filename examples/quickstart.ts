import { Simulation, loadModelFile } from 'sap-studio/node';

// a URDF robot: its root welded to the world, standing on the ground plane the loader adds
const robot = await loadModelFile('examples/double_pendulum.urdf');
for (const w of robot.warnings) console.warn(`warning: ${w}`);

// the CPU reference, drake preset, at the model's time step (5 ms for URDF)
const sim = new Simulation(robot.model, { dt: robot.dt, solver: { contact_preset_variant: 'drake' } });
for (let i = 0; i < 200; i++) sim.step();

// body poses: [x, y, z, qx, qy, qz, qw] per body, in metres, in the world frame
const b = robot.model.body_label.indexOf('forearm');
const pose = Array.from(sim.state.body_q.subarray(7 * b, 7 * b + 7));
console.log(`t = ${sim.state.time.toFixed(3)} s, forearm at`, pose.slice(0, 3), 'quaternion', pose.slice(3));
