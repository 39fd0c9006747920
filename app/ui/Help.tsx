/** the `?` overlay: every keyboard shortcut, from the one table the key handler uses */
import { SHORTCUTS } from '../shortcuts';
import { useStudio } from '../store';

export function HelpButton() {
  return (
    <button
      className="help-button"
      title="keyboard shortcuts (?)"
      data-testid="help-button"
      onClick={() => useStudio.getState().set({ help: !useStudio.getState().help })}
    >
      ?
    </button>
  );
}

export function HelpOverlay() {
  const open = useStudio((s) => s.help);
  if (!open) return null;
  return (
    <div className="help" data-testid="help" onClick={() => useStudio.getState().set({ help: false })}>
      <div className="help-box" onClick={(e) => e.stopPropagation()}>
        <strong>Keyboard shortcuts</strong>
        <table>
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.label}>
                <td>
                  <kbd>{s.label}</kbd>
                </td>
                <td>{s.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          Mouse: left-drag orbits, right-drag pans, wheel zooms; drag a body to pull it with a spring; click a
          body or a contact to inspect it. Drop files or a folder anywhere to load them.
        </p>
      </div>
    </div>
  );
}
