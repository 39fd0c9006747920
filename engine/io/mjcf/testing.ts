/**
 * MJCF test models shared by the importer's tests and the GPU parity tests.
 */

/**
 * A two-link arm (hinges about y at 1 m, 0.4 m capsule links of 1 kg, horizontal at qpos0, no
 * collisions) whose fixed tendon l = ½·hip − ½·knee (qpos, the hip with ref 0.2) is limited to
 * [−0.3, 0.6]; `damping` on both hinges [N·m·s/rad].
 */
export function tendonArmMjcf(damping: number): string {
  return `<mujoco><compiler angle="radian"/><option timestep="0.002"/><worldbody>
    <body name="upper" pos="0 0 1"><joint name="hip" type="hinge" axis="0 1 0" damping="${damping}" ref="0.2"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.4 0 0"><joint name="knee" type="hinge" axis="0 1 0" damping="${damping}"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/></body></body>
  </worldbody><tendon><fixed name="ham" limited="true" range="-0.3 0.6">
    <joint joint="hip" coef="0.5"/><joint joint="knee" coef="-0.5"/></fixed></tendon></mujoco>`;
}

/**
 * A two-link arm (hinges about y at 1 m, 0.4 m capsule links of 1 kg; the upper hinge with armature
 * 0.05, the lower link pitched 0.3 rad) and a free 2 kg plate beside it, none colliding, with
 * gravity compensation: half the upper link's weight, all of the lower link's, a quarter of the
 * plate's. `actuators`: the content of the `<actuator>` section.
 */
export function gravcompArmMjcf(actuators = ''): string {
  return `<mujoco><compiler angle="radian"/><option timestep="0.002"/><worldbody>
    <body name="upper" pos="0 0 1" gravcomp="0.5"><joint name="hip" type="hinge" axis="0 1 0" armature="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.4 0 0" euler="0 0.3 0" gravcomp="1"><joint name="knee" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/></body></body>
    <body name="plate" pos="1 0 1" gravcomp="0.25"><freejoint/>
      <geom type="box" size="0.1 0.05 0.02" mass="2" contype="0" conaffinity="0"/></body>
  </worldbody><actuator>${actuators}</actuator></mujoco>`;
}
