import { describe, expect, it } from 'vitest';
import { chooseVideoType, formatElapsed } from './video';

describe('video recording', () => {
  it('prefers MP4 where the browser records it, else WebM; a chosen container is kept or refused', () => {
    const all = () => true;
    expect(chooseVideoType(all)).toEqual({ ext: 'mp4', type: 'video/mp4;codecs=avc1' });
    const webmOnly = (t: string) => t.startsWith('video/webm') && !t.includes('vp9');
    expect(chooseVideoType(webmOnly)).toEqual({ ext: 'webm', type: 'video/webm;codecs=vp8' });
    expect(chooseVideoType(all, 'webm')).toEqual({ ext: 'webm', type: 'video/webm;codecs=vp9' });
    expect(chooseVideoType(webmOnly, 'mp4')).toBeNull();
    expect(chooseVideoType(() => false)).toBeNull();
  });

  it('writes the elapsed time as m:ss', () => {
    expect(formatElapsed(0)).toBe('0:00');
    expect(formatElapsed(59_999)).toBe('0:59');
    expect(formatElapsed(61_000)).toBe('1:01');
    expect(formatElapsed(-5)).toBe('0:00');
  });
});
