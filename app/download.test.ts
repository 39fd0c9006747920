import { describe, expect, it } from 'vitest';
import { fileSlug, stampedFileName } from './download';

describe('download names', () => {
  it('names a file after the model and the local time', () => {
    const at = new Date(2026, 11, 8, 9, 5, 7);
    expect(stampedFileName('box_stack', 'webm', at)).toBe('box_stack-20261208-090507.webm');
    expect(stampedFileName('barkour vB scene', 'trajectory.csv', at)).toBe(
      'barkour_vB_scene-20261208-090507.trajectory.csv',
    );
  });

  it('keeps file names safe: no folders, no spaces, never empty', () => {
    expect(fileSlug('../etc/passwd')).toBe('etc_passwd');
    expect(fileSlug('cube.usdz[cube')).toBe('cube.usdz_cube');
    expect(fileSlug('   ')).toBe('model');
    expect(fileSlug('Äpfel')).toBe('Apfel');
  });
});
