/** the studio layout: viewport with overlays and leva panels, timeline, ablation plots */
import { Leva } from 'leva';
import { useEffect, useRef } from 'react';
import { filesFromInput } from './files';
import {
  ControlPanel,
  ScenePanel,
  SimulationPanel,
  SolverPanel,
  StatsPanel,
  ViewPanel,
} from './panels/Panels';
import { Plots } from './plots/Plots';
import { loadFiles } from './session';
import { onShortcutKey } from './shortcuts';
import { useStudio } from './store';
import {
  BackendStatus,
  BodyInspector,
  ContactInspector,
  DropZone,
  ErrorBanner,
  Notice,
  SceneInfoBox,
  Timeline,
  TruncationWarning,
} from './ui/Overlays';
import { DropChooser } from './ui/DropChooser';
import { HelpButton, HelpOverlay } from './ui/Help';
import { LoadProgress } from './ui/LoadProgress';
import { RealtimeBadge } from './ui/RealtimeBadge';
import { StepInspector, StepInspectorButton } from './ui/StepInspector';
import { SceneTree } from './ui/SceneTree';
import { UrlConsent } from './ui/UrlConsent';
import { Viewport } from './viewport/Viewport';

export function App() {
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const panelsHidden = useStudio((s) => s.panelsHidden);
  const sceneName = useStudio((s) => s.scene?.name);

  // the window's title names the model, as the file does
  useEffect(() => {
    document.title = sceneName ? `${sceneName} · SAP Studio` : 'SAP Studio';
  }, [sceneName]);

  // keyboard shortcuts (app/shortcuts.ts; `?` lists them)
  useEffect(() => {
    window.addEventListener('keydown', onShortcutKey);
    return () => window.removeEventListener('keydown', onShortcutKey);
  }, []);

  const onFiles = (e: React.ChangeEvent<HTMLInputElement>) => {
    const list = e.currentTarget.files;
    if (list && list.length) void loadFiles(filesFromInput(list));
    e.currentTarget.value = '';
  };

  return (
    <div className={panelsHidden ? 'studio panels-hidden' : 'studio'}>
      <div className="stage">
        <Viewport />
        <div className="left-column">
          <SceneInfoBox />
          <SceneTree />
        </div>
        <ErrorBanner />
        <Notice />
        <TruncationWarning />
        <BackendStatus />
        <div className="inspectors">
          <BodyInspector />
          <ContactInspector />
          <StepInspector />
        </div>
        <HelpButton />
        <StepInspectorButton />
        <LoadProgress />
        <RealtimeBadge />
        <DropChooser />
        <div className="leva-wrap">
          <Leva
            fill
            collapsed={false}
            titleBar={{ title: 'SAP Studio', filter: false, drag: false }}
            theme={{ sizes: { rootWidth: '100%', controlWidth: '150px' } }}
          />
        </div>
      </div>
      <Timeline />
      <Plots />
      <DropZone />
      <UrlConsent />
      <HelpOverlay />
      <ScenePanel
        openFiles={() => fileInput.current?.click()}
        openFolder={() => folderInput.current?.click()}
      />
      <SolverPanel />
      <SimulationPanel />
      <ViewPanel />
      <ControlPanel />
      <StatsPanel />
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        data-testid="file-input"
        accept=".yaml,.yml,.json,.urdf,.xml,.mjcf,.usd,.usda,.usdc,.usdz,.zip,.stl,.obj,.dae,.png"
        onChange={onFiles}
      />
      <input
        ref={folderInput}
        type="file"
        hidden
        data-testid="folder-input"
        {...({ webkitdirectory: '', directory: '' } as Record<string, string>)}
        onChange={onFiles}
      />
    </div>
  );
}
