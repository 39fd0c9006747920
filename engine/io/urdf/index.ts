/** URDF importer (SPEC §5.2) */
import { importFilesOf } from '../import';

export {
  importUrdf,
  parseUrdf,
  type UrdfRobot,
  type UrdfLink,
  type UrdfJoint,
  type UrdfGeom,
  type UrdfGeometry,
} from './urdf';

/** the worker's drop entry point: a URDF among dropped files → a finalized model */
export const importUrdfFiles = importFilesOf('urdf');
