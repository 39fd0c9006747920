/**
 * Every resource limit on untrusted input, in one place (SPEC §11). Readers, the worker protocol, the
 * studio's file drops and share links import their numbers from here, and every rejection names the
 * limit it hit by its key, e.g. "USDZ archive of 300000000 bytes exceeds max_archive_bytes =
 * 268435456" (see {@link limitError}), so a user can tell which limit to raise and where.
 */

import { MAX_RIGID_CONTACT } from '../sap/options';

const MiB = 1024 * 1024;
/** one number for both: a share link replays its steps with one worker `step` command */
const MAX_REPLAY_STEPS = 200_000;

export const LIMITS = {
  // ---- uploads (drops, file pickers, `load_scene` file maps)
  /** most files in one drop / file map */
  max_upload_files: 4096,
  /** most bytes over all files of one drop / file map (archives counted inflated) */
  max_upload_bytes: 256 * MiB,
  /** largest single asset file read through a resolver */
  max_asset_bytes: 256 * MiB,

  // ---- archives (.zip drops, .usdz)
  /** largest archive file */
  max_archive_bytes: 256 * MiB,
  /** most entries of one archive */
  max_archive_entries: 4096,
  /** most bytes one archive may inflate to */
  max_decompressed_bytes: 512 * MiB,
  /** largest inflated / compressed ratio of one entry above 1 MiB (zip bombs; deflate tops out near 1032) */
  max_compression_ratio: 200,
  /** largest single inflated archive entry [bytes] (checked from the central directory before inflating) */
  max_entry_bytes: 256 * MiB,

  // ---- text formats
  /** largest scene file [characters] (JSON; YAML has its own, lower limit) */
  max_scene_chars: 8 * MiB,
  /** largest YAML scene file [characters]: YAML parses at 0.3–1 MB/s (pile_1000.yaml is 218 KB) */
  max_yaml_chars: 512 * 1024,
  /** deepest nesting of a scene document (flow and block collections) */
  max_scene_depth: 64,
  /** most YAML alias expansions in one scene (billion laughs) */
  max_yaml_aliases: 1000,
  /** longest numeric expression in a scene [characters] */
  max_expr_chars: 1000,
  /** deepest numeric expression */
  max_expr_depth: 64,
  /** largest XML document (URDF / MJCF) [characters] */
  max_xml_chars: 64 * MiB,
  /** deepest XML element nesting */
  max_xml_depth: 256,
  /** most XML elements in one document */
  max_xml_elements: 2_000_000,
  /** XML entity expansion: DTD entity declarations are refused, so no entity expands */
  max_xml_entity_expansions: 0,
  /** longest XML attribute value or run of text between tags [characters] (checked before parsing) */
  max_xml_value_chars: 16 * MiB,
  /** longest line of a line-based text format (OBJ, MTL, ASCII STL) [characters] */
  max_line_chars: 1 * MiB,
  /** most vertices of one OBJ polygon (`f` line; fan-triangulated into count − 2 triangles) */
  max_polygon_vertices: 4096,
  /** deepest chain of MJCF <include>s */
  max_include_depth: 16,

  // ---- USD
  /** largest single USD layer [bytes] */
  max_layer_bytes: 256 * MiB,
  /** most layers of one stage (sublayers, references, payloads) */
  max_layers: 512,
  /** deepest chain of composition arcs */
  max_arc_depth: 64,
  /** most composed prims of a stage */
  max_prims: 2_000_000,
  /** deepest nesting of prims and values in USDA text */
  max_usda_nesting: 256,
  /** longest USDA token (identifier, string, asset path, path, number) [characters] */
  max_token_chars: 1 * MiB,
  /** most elements of one USD array value */
  max_array_elements: 64 * MiB,

  // ---- meshes and terrain
  /** most triangles of one mesh (the largest in the shared assets has 73k) */
  max_mesh_triangles: 1_000_000,
  /** most vertices of one mesh */
  max_mesh_vertices: 1_000_000,
  /** most samples of one heightfield */
  max_hfield_samples: 16_000_000,

  // ---- models and simulation
  /** most bodies authored in one file (scene, URDF, MJCF, USD), before replication */
  max_bodies: 4096,
  /** most shapes authored in one file, before replication */
  max_shapes: 8192,
  /** most replicated worlds of a scene */
  max_worlds: 65536,
  /** most bodies over all worlds */
  max_total_bodies: 4_000_000,
  /** most contact slots per world (the solver option's own bound, one constant) */
  max_rigid_contact: MAX_RIGID_CONTACT,
  /** most contact slots over all worlds (contact buffers are allocated up front) */
  max_contact_slots: 1_048_576,
  /** most shape pairs an importer may exclude from collision one by one (MJCF weld groups, excludes) */
  max_filter_pairs: 1_000_000,
  /** most candidate shape pairs over all worlds (the default broad phase lists them up front) */
  max_broadphase_pairs: 8_000_000,

  /** longest time step [s] (a step over a second is a unit mistake: 1e30 s jumps past every event) */
  max_time_step: 1,

  // ---- worker protocol
  /** longest scene text in a `load_scene` command [characters] */
  max_protocol_text: 8 * MiB,
  /** largest `step` request (= max_link_steps: a link's replay is one request) */
  max_step_n: MAX_REPLAY_STEPS,
  /** most values of a state vector sent to the worker (`restore`) */
  max_state_values: 16_000_000,
  /** history ring memory [bytes] */
  max_history_bytes: 64 * MiB,

  // ---- share links
  /** longest link payload (characters after `#link=`) */
  max_link_chars: 96 * 1024,
  /** most bytes a link payload may inflate to */
  max_link_json_bytes: 1 * MiB,
  /** longest inline scene carried by a link [characters] */
  max_link_scene_chars: 512 * 1024,
  /** most steps a link may ask to replay (= max_step_n) */
  max_link_steps: MAX_REPLAY_STEPS,
  /** largest scene fetched from a URL in a link [bytes] */
  max_url_scene_bytes: 8 * MiB,
} as const;

export type LimitName = keyof typeof LIMITS;

/** a limit's value as written in messages: exact bytes plus a readable size for byte limits */
export function formatLimit(name: LimitName): string {
  const v = LIMITS[name];
  if (/bytes/.test(name) && v >= MiB) return `${v} (${v / MiB} MiB)`;
  return String(v);
}

/** "WHAT exceeds NAME = VALUE": the wording every limit rejection uses */
export function limitMessage(what: string, name: LimitName): string {
  return `${what} exceeds ${name} = ${formatLimit(name)}`;
}

/** the limits as a table (for documentation and the fuzz report) */
export function limitsTable(): [LimitName, number][] {
  return Object.entries(LIMITS) as [LimitName, number][];
}

/**
 * Whether a model builder holds more bodies or shapes than one file may author (max_bodies,
 * max_shapes): the message to report, or undefined. Checked before `finalize()`, whose cost grows
 * faster than linearly with the counts.
 */
export function builderSizeProblem(b: {
  bodies: readonly unknown[];
  shapes: readonly unknown[];
}): string | undefined {
  if (b.bodies.length > LIMITS.max_bodies) return limitMessage(`${b.bodies.length} bodies`, 'max_bodies');
  if (b.shapes.length > LIMITS.max_shapes) return limitMessage(`${b.shapes.length} shapes`, 'max_shapes');
  return undefined;
}
