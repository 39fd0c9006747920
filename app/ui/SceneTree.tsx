/**
 * The scene tree panel (`t`): world 0's bodies nested under their parents, each with its joint and
 * shapes, named from the file. Clicking a body selects it (the inspector opens) and frames it; the
 * selected body's branch opens and scrolls into view. Nodes fold; the panel scrolls.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { viewport } from '../session';
import { useStudio } from '../store';
import { buildSceneTree, pathToBody, type TreeBody } from './scene_tree';

/** selects body `b` (the existing selection) and points the camera at it */
function selectBody(b: number): void {
  useStudio.getState().set({ selection: b, contact: null });
  viewport.handle?.frameSelected();
}

function Node({
  node,
  depth,
  folded,
  toggle,
  selection,
}: {
  node: TreeBody;
  depth: number;
  folded: Set<number>;
  toggle: (b: number) => void;
  selection: number | null;
}) {
  const open = !folded.has(node.body);
  const leaves = node.shapes.length + node.children.length > 0;
  const selected = node.body >= 0 && node.body === selection;
  return (
    <li>
      <div className={selected ? 'tree-row selected' : 'tree-row'} style={{ paddingLeft: depth * 12 }}>
        <button
          className="tree-fold"
          aria-label={open ? `fold ${node.label}` : `unfold ${node.label}`}
          disabled={!leaves}
          onClick={() => toggle(node.body)}
        >
          {leaves ? (open ? '▾' : '▸') : ''}
        </button>
        {node.body >= 0 ? (
          <button
            className="tree-body"
            data-testid={`tree-body-${node.body}`}
            data-selected={selected || undefined}
            title={`select and frame body ${node.body}`}
            onClick={() => selectBody(node.body)}
          >
            {node.label}
          </button>
        ) : (
          <span className="tree-body world">{node.label}</span>
        )}
        {node.joint && node.joint.type !== 'fixed' && (
          <span className="tree-joint" title={`joint ${node.joint.label}`}>
            {node.joint.label} · {node.joint.type}
          </span>
        )}
        {node.joint?.type === 'fixed' && <span className="tree-joint">fixed</span>}
      </div>
      {open && leaves && (
        <ul>
          {node.shapes.map((s) => (
            <li key={`s${s.index}`} className="tree-shape" style={{ paddingLeft: depth * 12 + 30 }}>
              {s.label} <span className="muted">{s.type}</span>
            </li>
          ))}
          {node.children.map((c) => (
            <Node
              key={c.body}
              node={c}
              depth={depth + 1}
              folded={folded}
              toggle={toggle}
              selection={selection}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

export function SceneTree() {
  const open = useStudio((s) => s.sceneTree);
  const scene = useStudio((s) => s.scene);
  const selection = useStudio((s) => s.selection);
  const tree = useMemo(() => (scene ? buildSceneTree(scene) : null), [scene]);
  const [folded, setFolded] = useState<Set<number>>(new Set());
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => setFolded(new Set()), [tree]);
  // a body selected elsewhere (the viewport): its branch opens and scrolls into view
  useEffect(() => {
    if (!tree || selection === null) return;
    const path = pathToBody(tree, selection);
    if (!path) return;
    setFolded((f) =>
      path.some((b) => b !== selection && f.has(b))
        ? new Set([...f].filter((b) => !path.includes(b) || b === selection))
        : f,
    );
    const id = requestAnimationFrame(() =>
      box.current
        ?.querySelector(`[data-testid="tree-body-${selection}"]`)
        ?.scrollIntoView({ block: 'nearest' }),
    );
    return () => cancelAnimationFrame(id);
  }, [tree, selection, open]);
  // the inspectors open at the bottom left: the column ends above them (CSS --inspectors-h)
  useEffect(() => {
    const col = box.current?.parentElement;
    const inspectors = document.querySelector<HTMLElement>('.inspectors');
    if (!open || !col || !inspectors) return;
    const fit = () => {
      col.style.setProperty('--inspectors-h', `${inspectors.offsetHeight}px`);
      // the panel got shorter or taller: the selected body stays in view
      const sel = useStudio.getState().selection;
      requestAnimationFrame(() =>
        box.current?.querySelector(`[data-testid="tree-body-${sel}"]`)?.scrollIntoView({ block: 'nearest' }),
      );
    };
    const ro = new ResizeObserver(fit);
    ro.observe(inspectors);
    fit();
    return () => {
      ro.disconnect();
      col.style.removeProperty('--inspectors-h');
    };
  }, [open, tree]);
  if (!open || !scene || !tree) return null;
  const toggle = (b: number) =>
    setFolded((f) => {
      const n = new Set(f);
      if (n.has(b)) n.delete(b);
      else n.add(b);
      return n;
    });
  return (
    <div className="scene-tree" data-testid="scene-tree" ref={box}>
      <div className="scene-tree-head">
        <strong>scene tree</strong>
        <span className="muted">
          {scene.bodies_per_world} bodies
          {scene.num_worlds > 1 ? ` · world 0 of ${scene.num_worlds}` : ''}
        </span>
        <button
          className="linklike"
          title="close (t)"
          onClick={() => useStudio.getState().set({ sceneTree: false })}
        >
          ×
        </button>
      </div>
      <ul className="tree">
        <Node node={tree} depth={0} folded={folded} toggle={toggle} selection={selection} />
      </ul>
    </div>
  );
}
