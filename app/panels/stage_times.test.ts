import { describe, expect, it } from 'vitest';
import { formatDuration, stageRows } from './stage_times';

describe('stats panel stage rows', () => {
  it('formats durations with three significant digits, µs below a millisecond', () => {
    expect(formatDuration(0)).toBe('0');
    expect(formatDuration(0.0123456)).toBe('12.3 µs');
    expect(formatDuration(0.5)).toBe('500 µs');
    expect(formatDuration(21.456)).toBe('21.5 ms');
    expect(formatDuration(Number.NaN)).toBe('0');
  });

  it('shows each stage with its share of the stages’ sum', () => {
    const rows = stageRows(
      { collision: 0.01, free_motion: 0.02, constraints: 0.03, solve: 0.03, integrate: 0.01 },
      false,
    );
    expect(rows).toEqual({
      collision: '10 µs (10%)',
      'free motion': '20 µs (20%)',
      constraints: '30 µs (30%)',
      solve: '30 µs (30%)',
      integrate: '10 µs (10%)',
    });
  });

  it('says where the GPU backend’s queued stages went, and shows dashes before any step', () => {
    const rows = stageRows(
      { collision: 0.1, free_motion: 0, constraints: 0, solve: 1.5, integrate: 0.4 },
      true,
    );
    expect(rows['free motion']).toBe('queued in solve (GPU)');
    expect(rows.solve).toBe('1.5 ms (75%)');
    expect(rows.integrate).toBe('400 µs (20%) read-back');
    expect(stageRows(null, false).solve).toBe('—');
  });
});
