import { deflateSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, parseCommand } from '../engine/worker/protocol';
import {
  LinkError,
  MAX_INLINE_SCENE,
  MAX_LINK_CHARS,
  MAX_LINK_JSON_BYTES,
  MAX_LINK_STEPS,
  boundedInflate,
  decodeF64,
  decodeLink,
  encodeF64,
  encodeLink,
  fromBase64Url,
  linkPayloadFromHash,
  linkUrl,
  toBase64Url,
  type LinkState,
} from './link';

const raw = (value: unknown) => toBase64Url(deflateSync(strToU8(JSON.stringify(value))));

describe('share links', () => {
  const state: LinkState = {
    v: 1,
    scene: { kind: 'catalog', id: 'box_stack' },
    options: { contact_preset_variant: 'approx64', max_iterations: 50, use_f64_boundary_pose: false },
    sim: { dt: 0.002, speed: 0.5, num_worlds: 4 },
    camera: { position: [1, -2, 1.5], target: [0, 0, 0.5] },
    step: 120,
    time: 0.24,
    playing: false,
    selection: 3,
    view: { overlay: true, collision: false, follow: true },
  };

  it('a link replays up to the step count the worker takes in one request, and no further', () => {
    // the studio writes links up to MAX_LINK_STEPS; opening one sends one `step` of that many
    const last = decodeLink(encodeLink({ ...state, step: MAX_LINK_STEPS }));
    expect(last.step).toBe(MAX_LINK_STEPS);
    expect(parseCommand({ v: PROTOCOL_VERSION, type: 'step', n: last.step }).ok).toBe(true);
    expect(() => encodeLink({ ...state, step: MAX_LINK_STEPS + 1 })).toThrow(/max_link_steps = 200000/);
  });

  it('round-trips every field', () => {
    const payload = encodeLink(state);
    expect(payload).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLink(payload)).toEqual(state);
    const url = linkUrl('http://127.0.0.1:4173/?quality=low#old', state);
    expect(url.startsWith('http://127.0.0.1:4173/?quality=low#link=')).toBe(true);
    expect(linkPayloadFromHash(new URL(url).hash)).toBe(payload);
    expect(linkPayloadFromHash('#foo=1')).toBeNull();
  });

  it('carries the backend; links without one (older links too) still decode, meaning the CPU', () => {
    const gpu: LinkState = { ...state, sim: { ...state.sim, backend: 'webgpu' } };
    expect(decodeLink(encodeLink(gpu)).sim?.backend).toBe('webgpu');
    const old = decodeLink(raw({ v: 1, scene: { kind: 'catalog', id: 'box_stack' }, sim: { dt: 0.002 } }));
    expect(old.sim?.backend).toBeUndefined();
    expect(() =>
      decodeLink(raw({ v: 1, scene: { kind: 'catalog', id: 'box_stack' }, sim: { backend: 'cuda' } })),
    ).toThrow(/sim\.backend/);
  });

  it('carries an MJCF keyframe by name with an inline model; an empty or overlong name is refused', () => {
    const text = '<mujoco><worldbody/><keyframe><key name="home"/></keyframe></mujoco>';
    const link: LinkState = {
      v: 1,
      scene: { kind: 'inline', name: 'robot.xml', text },
      sim: { keyframe: 'home' },
    };
    expect(decodeLink(encodeLink(link))).toEqual(link);
    for (const keyframe of ['', 'k'.repeat(257), 3])
      expect(() => decodeLink(raw({ ...link, sim: { keyframe } }))).toThrow(/link: sim\.keyframe/);
  });

  it('carries an inline scene compressed, and URLs', () => {
    const text = 'schema_version: 1\n' + '# padding\n'.repeat(5000);
    const inline: LinkState = { v: 1, scene: { kind: 'inline', name: 'a.yaml', text } };
    const payload = encodeLink(inline);
    expect(payload.length).toBeLessThan(text.length / 20);
    expect(decodeLink(payload)).toEqual(inline);
    const url: LinkState = { v: 1, scene: { kind: 'url', url: 'https://example.org/s.yaml' } };
    expect(decodeLink(encodeLink(url))).toEqual(url);
  });

  it('rejects invalid payloads naming the key path', () => {
    const err = (payload: string) => {
      try {
        decodeLink(payload);
      } catch (e) {
        expect(e).toBeInstanceOf(LinkError);
        return e as LinkError;
      }
      throw new Error('accepted');
    };
    expect(err('not base64!').reason).toMatch(/base64url/);
    expect(err(toBase64Url(new Uint8Array([1, 2, 3, 4]))).reason).toMatch(/deflate|JSON/);
    expect(err(toBase64Url(deflateSync(strToU8('{not json')))).reason).toMatch(/JSON/);
    expect(err(raw({ v: 2, scene: { kind: 'catalog', id: 'a' } })).path).toBe('v');
    expect(err(raw({ v: 1, scene: { kind: 'catalog', id: '../../etc' } })).path).toBe('scene.id');
    expect(err(raw({ v: 1, scene: { kind: 'url', url: 'javascript:alert(1)' } })).path).toBe('scene.url');
    expect(err(raw({ v: 1, scene: { kind: 'catalog', id: 'a' }, options: { evil: 1 } })).path).toMatch(
      /^options/,
    );
    expect(
      err(raw({ v: 1, scene: { kind: 'catalog', id: 'a' }, camera: { position: [0, 0], target: [0, 0, 0] } }))
        .path,
    ).toMatch(/^camera\.position/);
    expect(err(raw({ v: 1, scene: { kind: 'catalog', id: 'a' }, step: -1 })).path).toBe('step');
    expect(err(raw({ v: 1, scene: { kind: 'catalog', id: 'a' }, extra: '<script>' })).reason).toMatch(
      /extra|Unrecognized/,
    );
  });

  it('limits sizes before and during decompression', () => {
    expect(() => decodeLink('A'.repeat(MAX_LINK_CHARS + 1))).toThrow(/exceeds max_link_chars = /);
    // a deflate bomb: a few KB that inflate past the JSON limit
    const bomb = toBase64Url(deflateSync(new Uint8Array(MAX_LINK_JSON_BYTES * 4), { level: 9 }));
    expect(bomb.length).toBeLessThan(MAX_LINK_CHARS);
    expect(() => decodeLink(bomb)).toThrow(/inflates to more than/);
    expect(() => boundedInflate(deflateSync(new Uint8Array(100)), 99)).toThrow(LinkError);
    expect(boundedInflate(deflateSync(new Uint8Array(100)), 100)).toHaveLength(100);
    // an inline scene over the limit is refused when encoding and when decoding
    const big: LinkState = {
      v: 1,
      scene: { kind: 'inline', name: 'a.yaml', text: 'x'.repeat(MAX_INLINE_SCENE + 1) },
    };
    expect(() => encodeLink(big)).toThrow(/scene\.text/);
  });

  it('base64url round-trips arbitrary bytes', () => {
    const b = new Uint8Array(70000).map((_, i) => (i * 7919) & 255);
    expect(Array.from(fromBase64Url(toBase64Url(b)))).toEqual(Array.from(b));
  });

  it('carries an exact state as binary64 values and rejects a damaged one with its path', () => {
    const q = [0, -1.5, Math.PI, 1e-300, -0, 123456789.12345679, Number.MIN_VALUE];
    const back = decodeF64(encodeF64(q), 'state.joint_q');
    expect(Array.from(back)).toEqual(q);
    expect(Object.is(back[4], -0)).toBe(true);
    const withState: LinkState = {
      ...state,
      state: { joint_q: encodeF64(q), joint_qd: encodeF64([0.5, -0.25]) },
    };
    expect(decodeLink(encodeLink(withState))).toEqual(withState);

    expect(() => decodeF64(encodeF64(q).slice(0, 10), 'state.joint_q')).toThrow(
      /state\.joint_q: .*whole number/,
    );
    expect(() => decodeF64(encodeF64([1, NaN]), 'state.joint_qd')).toThrow(
      /state\.joint_qd\[1\]: not a finite/,
    );
    expect(() => decodeF64('a*b', 'state.joint_q')).toThrow(/state\.joint_q: .*base64url/);
    const bad = raw({ ...state, state: { joint_q: 'a+b', joint_qd: '' } });
    expect(() => decodeLink(bad)).toThrow(/state\.joint_q/);
  });
});
