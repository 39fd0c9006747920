/**
 * Loads a model file by extension for the CLI and tests: scene files (.yaml, .yml, .json) now;
 * URDF, MJCF and USD join as their importers land (they are rejected with a typed error until then).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SapModel } from '../model';
import { SceneUnsupportedError } from './scene/errors';
import { loadScene, parseSceneText } from './scene/load';

/** what the CLI needs from any loaded file */
export interface LoadedSceneFile {
  name: string;
  dt: number;
  max_rigid_contact: number;
  /** solver options from the file (normalized, not expanded) */
  solver: Record<string, unknown>;
  model: SapModel;
  warnings: string[];
}

export interface LoadFileOptions {
  num_worlds?: number;
  /** root folder for git-backed and package:// assets */
  asset_root?: string;
  strict?: boolean;
}

const SCENE_EXT = new Set(['.yaml', '.yml', '.json']);

export async function loadModelFile(file: string, opts: LoadFileOptions = {}): Promise<LoadedSceneFile> {
  const ext = path.extname(file).toLowerCase();
  if (!SCENE_EXT.has(ext)) {
    throw new SceneUnsupportedError(
      [],
      `${file}: '${ext}' files are not supported yet (scene files .yaml/.yml/.json are; URDF, MJCF and USD arrive with the importers)`,
    );
  }
  const text = await readFile(file, 'utf8');
  const doc = parseSceneText(text, file);
  const loaded = loadScene(doc, { strict: opts.strict ?? true, num_worlds: opts.num_worlds });
  return {
    name: loaded.name,
    dt: loaded.dt,
    max_rigid_contact: loaded.max_rigid_contact,
    solver: loaded.solver,
    model: loaded.model,
    warnings: loaded.warnings,
  };
}
