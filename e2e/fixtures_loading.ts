/**
 * Fixtures of the loading tests (unit and end-to-end): a folder laid out as MuJoCo Menagerie's
 * shadow_hand (two scenes that each include one hand, a keyframes fragment, a mesh), written here
 * because the shared asset set does not hold that robot.
 */
import { strToU8 } from 'fflate';

/** MuJoCo Menagerie's shadow_hand layout: two scenes, each including one hand, and a keyframe fragment */
export function shadowHandFolder(): Map<string, Uint8Array> {
  const hand = (side: string) =>
    strToU8(`<mujoco model="${side}_shadow_hand">
  <worldbody>
    <body name="${side}_forearm" pos="0 0 0.3">
      <geom type="box" size="0.04 0.04 0.1"/>
      <body name="${side}_palm" pos="0 0 0.15">
        <joint name="${side}_wrist" type="hinge" axis="0 1 0" range="-0.5 0.5"/>
        <geom type="box" size="0.04 0.01 0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>`);
  const scene = (side: string) =>
    strToU8(`<mujoco model="${side}_shadow_hand scene">
  <include file="${side}_hand.xml"/>
  <worldbody>
    <geom name="floor" pos="0 0 -0.1" size="0 0 0.05" type="plane"/>
    <body name="object" pos="0.3 0 0.1"><freejoint/><geom type="ellipsoid" size="0.03 0.04 0.02"/></body>
  </worldbody>
</mujoco>`);
  return new Map([
    [
      'shadow_hand/keyframes.xml',
      strToU8('<mujoco>\n  <keyframe>\n    <key name="open" qpos="0"/>\n  </keyframe>\n</mujoco>'),
    ],
    ['shadow_hand/left_hand.xml', hand('left')],
    ['shadow_hand/right_hand.xml', hand('right')],
    ['shadow_hand/scene_left.xml', scene('left')],
    ['shadow_hand/scene_right.xml', scene('right')],
    ['shadow_hand/assets/forearm_0.obj', strToU8('v 0 0 0\n')],
  ]);
}
