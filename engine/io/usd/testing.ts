/** helpers of the USD tests (not part of the public API): paths into ../shared, read in place */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryResolver } from '../assets/resolvers';
import { NodeFsResolver } from '../assets/node_fs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** the development asset set (`shared/assets`, MANIFEST.md) */
export const ASSETS = path.resolve(here, '../../../../shared/assets');
/** SAP Warp's offline asset mirror (`shared/reference/sap_warp/assets`, INDEX.md) */
export const SAP_ASSETS = path.resolve(here, '../../../../shared/reference/sap_warp/assets');

/** the USD models of MANIFEST.md */
export const USD_MODELS = {
  S1: 'newton/cartpole/cartpole.usda',
  S2: 'newton/ant/ant.usda',
  S3: 'newton/boxes_fourbar/boxes_fourbar.usda',
  S4: 'newton-assets/booster_t1/usd_structured/T1.usda',
  S5: 'newton-assets/anybotics_anymal_d/usd/anymal_d.usda',
  S6: 'newton/crazyflie/crazyflie.usd',
  S7: 'tinyusdz/cube.usdz',
} as const;

/** a file-system resolver over the whole machine (paths are absolute) */
export function fsResolver(): NodeFsResolver {
  return new NodeFsResolver({ root: '/' });
}

/** an in-memory resolver over text files (paths like 'root.usda', 'sub/x.usda') */
export function memResolver(files: Record<string, string | Uint8Array>): MemoryResolver {
  return new MemoryResolver(files);
}
