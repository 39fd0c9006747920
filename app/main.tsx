/**
 * SAP Studio entry: mounts the React app, opens the link in the URL hash (or the default scene) and
 * exposes read-only state for end-to-end tests as `window.__sapStudio`.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ghostTestApi } from './ghost';
import { start, testApi, watchHash } from './session';
import './style.css';

// the MuJoCo ghost's state rides along as `__sapStudio.ghost`
Object.defineProperty(testApi, 'ghost', { value: ghostTestApi, enumerable: true });
(window as unknown as { __sapStudio: typeof testApi }).__sapStudio = testApi;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
start();
watchHash();
