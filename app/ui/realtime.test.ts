import { describe, expect, it } from 'vitest';
import { costliestStage, slowdownText } from './realtime';

const stages = { collision: 4.2, free_motion: 0.3, constraints: 0.5, solve: 1.0, integrate: 0.1 };
const base = { playing: true, speed: 1, step_ms: 6.1, stage_ms: stages, stages_queued: false };

describe('below-real-time badge', () => {
  it('names the costliest stage when the simulation falls behind the asked speed', () => {
    expect(costliestStage(stages)).toEqual({ label: 'collision', ms: 4.2 });
    expect(slowdownText({ ...base, realtime_factor: 0.31 })).toBe(
      '0.31× real time (asked 1×) · collision 4.2 ms of 6.1 ms a step',
    );
    expect(slowdownText({ ...base, speed: 2, realtime_factor: 1.5 })).toMatch(
      /^1\.5× real time \(asked 2×\)/,
    );
    // on the GPU the solve holds the queued passes
    const gpu = { ...stages, collision: 0.2, solve: 3 };
    expect(slowdownText({ ...base, stage_ms: gpu, stages_queued: true, realtime_factor: 0.5 })).toMatch(
      /solve \(GPU queue\) 3 ms/,
    );
    expect(slowdownText({ ...base, stage_ms: null, realtime_factor: 0.5 })).toBe('0.5× real time (asked 1×)');
  });

  it('is silent while the simulation keeps up or is paused', () => {
    expect(slowdownText({ ...base, realtime_factor: 0.95 })).toBeNull();
    expect(slowdownText({ ...base, realtime_factor: 0.2, playing: false })).toBeNull();
    expect(costliestStage(null)).toBeNull();
  });
});
