/**
 * The question a link with a URL scene asks before anything is fetched from another host (SPEC §8:
 * links never fetch from arbitrary hosts without the user's consent). The URL is shown as text.
 */
import { answerUrlConsent } from '../session';
import { useStudio } from '../store';

export function UrlConsent() {
  const c = useStudio((s) => s.urlConsent);
  if (!c) return null;
  return (
    <div
      className="consent"
      role="dialog"
      aria-modal="true"
      aria-labelledby="consent-title"
      data-testid="url-consent"
    >
      <div className="consent-box">
        <strong id="consent-title">Load a scene from another site?</strong>
        <p>
          This link asks the studio to download its scene from <b data-testid="url-consent-host">{c.host}</b>:
        </p>
        <p className="consent-url" data-testid="url-consent-url">
          {c.url}
        </p>
        <p className="muted">Nothing has been downloaded yet. The scene file is read as data, never run.</p>
        <div className="consent-buttons">
          <button onClick={() => answerUrlConsent(true)} data-testid="url-consent-load">
            load it
          </button>
          <button onClick={() => answerUrlConsent(false)} data-testid="url-consent-cancel">
            cancel
          </button>
        </div>
      </div>
    </div>
  );
}
