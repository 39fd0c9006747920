/**
 * The chooser of a drop that holds several models (a MuJoCo Menagerie folder with its left and right
 * scenes, SAP Warp's folder with its twelve scenes): the likely ones first, the other models behind
 * a toggle, the files set aside (parts of another model, files without one) listed with the reason
 * and still loadable. Closed, a button reopens it while the drop is kept.
 */
import { useEffect, useState } from 'react';
import type { Candidate } from '../candidates';
import { chooseDropped, showDropChooser } from '../session';
import { useStudio } from '../store';

function Row({ c, first }: { c: Candidate; first: boolean }) {
  return (
    <li>
      <button
        className={first ? 'choice likely' : 'choice'}
        data-testid="drop-choice"
        data-path={c.path}
        onClick={() => chooseDropped(c.path)}
        autoFocus={first}
      >
        <span className="choice-name">{c.path.slice(c.path.lastIndexOf('/') + 1)}</span>
        <span className="muted choice-note">
          {c.note} · {c.path}
        </span>
      </button>
    </li>
  );
}

export function DropChooser() {
  const choice = useStudio((s) => s.dropChoice);
  const [more, setMore] = useState(false);
  useEffect(() => setMore(false), [choice?.candidates]);
  useEffect(() => {
    if (!choice?.open) return;
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') showDropChooser(false);
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [choice?.open]);
  if (!choice) return null;
  const all = choice.candidates.length + choice.setAside.length;
  if (!choice.open) {
    return (
      <button className="drop-reopen" data-testid="drop-reopen" onClick={() => showDropChooser(true)}>
        {all} models in the drop…
      </button>
    );
  }
  const likely = choice.candidates.filter((c) => c.tier === 0);
  const top = likely.length > 0 ? likely : choice.candidates;
  const rest = likely.length > 0 ? choice.candidates.filter((c) => c.tier !== 0) : [];
  return (
    <div className="drop-chooser" role="dialog" aria-label="choose a model" data-testid="drop-chooser">
      <div className="drop-chooser-title">
        <strong>
          choose a model: {choice.count} dropped files hold {choice.candidates.length} model
          {choice.candidates.length === 1 ? '' : 's'}
        </strong>{' '}
        <span className="muted">pick one to load (the current scene runs until then)</span>
      </div>
      <ul className="choices">
        {top.map((c, i) => (
          <Row key={c.path} c={c} first={i === 0} />
        ))}
      </ul>
      {rest.length > 0 && (
        <>
          <button className="link-button" data-testid="drop-more" onClick={() => setMore(!more)}>
            {more ? '▾' : '▸'} {rest.length} other model{rest.length === 1 ? '' : 's'}
          </button>
          {more && (
            <ul className="choices">
              {rest.map((c) => (
                <Row key={c.path} c={c} first={false} />
              ))}
            </ul>
          )}
        </>
      )}
      {choice.setAside.length > 0 && (
        <details className="set-aside" data-testid="drop-set-aside">
          <summary className="muted">
            {choice.setAside.length} file{choice.setAside.length === 1 ? '' : 's'} not offered
          </summary>
          <ul className="choices">
            {choice.setAside.map((f) => (
              <li key={f.path}>
                <button className="choice" data-path={f.path} onClick={() => chooseDropped(f.path)}>
                  <span className="choice-name">{f.path.slice(f.path.lastIndexOf('/') + 1)}</span>
                  <span className="muted choice-note">
                    {f.reason} · {f.path}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
      <button onClick={() => showDropChooser(false)} data-testid="drop-close">
        close
      </button>
    </div>
  );
}
