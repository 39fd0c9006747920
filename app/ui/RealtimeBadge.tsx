/**
 * A badge while the simulation runs below the requested real-time factor (two stats reports in a
 * row, so a single slow interval does not flash it), naming the costliest step stage.
 */
import { useRef } from 'react';
import { useStudio } from '../store';
import { slowdownText } from './realtime';

export function RealtimeBadge() {
  const stats = useStudio((s) => s.stats);
  // the last stats may predate a pause
  const playing = useStudio((s) => s.playing);
  const last = useRef<{ stats: unknown; slow: number }>({ stats: null, slow: 0 });
  const text = stats ? slowdownText(stats) : null;
  if (stats !== last.current.stats) {
    last.current = { stats, slow: text ? last.current.slow + 1 : 0 };
  }
  if (!text || !playing || last.current.slow < 2) return null;
  return (
    <div className="realtime-badge" role="status" data-testid="realtime-badge" title="see the stats panel">
      ⏱ {text}
    </div>
  );
}
