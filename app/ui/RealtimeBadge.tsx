/**
 * A badge while the simulation runs below the requested real-time factor (the latest stats report,
 * a few a second), naming the costliest step stage.
 */
import { useStudio } from '../store';
import { slowdownText } from './realtime';

export function RealtimeBadge() {
  // the last stats may predate a pause
  const text = useStudio((s) => (s.stats && s.playing ? slowdownText(s.stats) : null));
  if (!text) return null;
  return (
    <div className="realtime-badge" role="status" data-testid="realtime-badge" title="see the stats panel">
      ⏱ {text}
    </div>
  );
}
