/**
 * JSON output schemas of the CLI (`--json`), one zod schema per command. Tests validate real
 * outputs against them; `npm run sim -- schema` prints them as JSON Schema for other tools.
 */
import { z } from '../io/zod';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const quat = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const finiteOrNull = z.number().nullable();

/** the solver stats of one step, per world (`run --trace`) */
const stepStats = z
  .object({
    status: z.enum(['converged', 'max_iterations', 'line_search_failed', 'invalid_input']),
    iterations: z.array(z.number().int()),
    line_search_iterations: z.array(z.number().int()),
    contacts: z.array(z.number().int()),
  })
  .strict();

/** what the loader said: ignored, approximated or unreadable features, and notes */
const loaderMessages = {
  /** the loader's warnings: what it ignored, approximated or could not read (`unsupported: …` first-class) */
  warnings: z.array(z.string()),
  /** what the loader did that the user should know of, though nothing is wrong (a robot placed on the ground) */
  notes: z.array(z.string()),
};

export const RunOutputSchema = z
  .object({
    scene: z.string(),
    ...loaderMessages,
    steps: z.number().int().nonnegative(),
    dt: z.number().positive(),
    time: z.number(),
    options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    worlds: z.array(
      z
        .object({
          bodies: z.array(
            z
              .object({
                name: z.string(),
                position: vec3,
                quaternion: quat,
                linear_velocity: vec3,
                angular_velocity: vec3,
              })
              .strict(),
          ),
          joint_q: z.array(z.number()),
          joint_qd: z.array(z.number()),
          /** kinetic energy ½·vᵀM·v at the end [J]; null when the state is not finite */
          kinetic_energy: finiteOrNull,
          /** potential energy (gravity, passive joint springs) at the end [J]; null when not finite */
          potential_energy: finiteOrNull,
          /** the change of kinetic + potential energy since the start [J] (drives, contacts, damping and the integrator) */
          energy_change: finiteOrNull,
          contacts: z.array(
            z
              .object({
                body_a: z.string(),
                body_b: z.string(),
                position: vec3,
                normal: vec3,
                force: vec3,
                phi0: z.number(),
                state: z.enum(['stick', 'slip', 'open']),
              })
              .strict(),
          ),
        })
        .strict(),
    ),
    stats: z
      .object({
        /**
         * the worst step: converged; max_iterations or line_search_failed (the solver's stated
         * accuracy was not reached); diverged (bodies passed through each other); invalid_input
         * (non-finite values). Anything but converged exits with code 1.
         */
        status: z.enum(['converged', 'max_iterations', 'line_search_failed', 'diverged', 'invalid_input']),
        /** why the status is not converged, at its first occurrence: step, time, world, body or quantity */
        reason: z.string().nullable(),
        /** the step where that status first occurred, counting from 1 (the k-th step ends at t₀ + k·dt); null when converged */
        failed_step: z.number().int().nullable(),
        iterations_mean: z.number(),
        iterations_max: z.number(),
        line_search_iterations_mean: z.number(),
        /** constraint islands per world and step (1: solved whole; solve_islands splits them) */
        islands_mean: z.number(),
        contacts_max: z.number(),
        truncated_contacts: z.number(),
        wall_ms: z.number(),
      })
      .strict(),
    trace: z
      .array(
        z
          .object({
            time: z.number(),
            joint_q: z.array(z.array(z.number())),
            joint_qd: z.array(z.array(z.number())),
            /** per world: kinetic and potential energy at `time` [J] */
            kinetic_energy: z.array(finiteOrNull),
            potential_energy: z.array(finiteOrNull),
            /** the solver stats of the step that ended at `time` (absent for the initial state) */
            step: stepStats.optional(),
          })
          .strict(),
      )
      .optional(),
    /** the backend that ran (present with --backend) */
    backend: z
      .object({
        kind: z.enum(['cpu', 'webgpu']),
        description: z.string(),
        /** set when the requested backend was unavailable: why, and that the CPU ran instead */
        fallback: z.string().optional(),
        /** realization of each precision knob, e.g. "fp64 (df64)" on WebGPU */
        precision: z.record(z.string(), z.string()),
      })
      .strict()
      .optional(),
  })
  .strict();

export const InspectOutputSchema = z
  .object({
    model: z.string(),
    ...loaderMessages,
    nq: z.number().int(),
    nv: z.number().int(),
    velocity_convention: z.literal('sap'),
    q: z.array(z.number()),
    qd: z.array(z.number()),
    bodies: z.array(
      z
        .object({
          name: z.string(),
          mass: z.number(),
          com: vec3,
          inertia: z.array(z.array(z.number())),
          gravcomp: z.number(),
        })
        .strict(),
    ),
    joints: z.array(
      z
        .object({
          name: z.string(),
          type: z.enum(['fixed', 'free', 'revolute', 'prismatic', 'ball']),
          parent: z.string(),
          child: z.string(),
          q_start: z.number().int(),
          qd_start: z.number().int(),
          axis: vec3,
          lower: finiteOrNull,
          upper: finiteOrNull,
        })
        .strict(),
    ),
    /** M(q) dense (nv × nv) [kg, kg·m, kg·m²]; null above 300 DOFs without --dense (see mass_matrix_blocks) */
    mass_matrix: z.array(z.array(z.number())).nullable(),
    /** M(q)'s diagonal block of each kinematic tree (M is zero between trees): its first DOF, size and entries */
    mass_matrix_blocks: z.array(
      z
        .object({
          dof_start: z.number().int(),
          size: z.number().int(),
          matrix: z.array(z.array(z.number())),
        })
        .strict(),
    ),
    bias_forces: z.array(z.number()),
  })
  .strict();

export const AblateOutputSchema = z
  .object({
    scene: z.string(),
    ...loaderMessages,
    steps: z.number().int(),
    dt: z.number(),
    /**
     * SPEC §3.8: from the same (q_n, v_n, contacts) one step under approx32, approx64 and drake;
     * Δprecision = v(approx64) − v(approx32), Δmodel = v(drake) − v(approx64): 2-norms over every
     * DOF, per world, and the largest absolute entry [m/s, rad/s]
     */
    one_step: z.array(
      z
        .object({
          time: z.number(),
          delta_precision: z.number(),
          delta_model: z.number(),
          per_world: z.object({ precision: z.array(z.number()), model: z.array(z.number()) }).strict(),
          max_abs: z.object({ precision: z.number(), model: z.number() }).strict(),
        })
        .strict(),
    ),
    trajectory: z.array(
      z
        .object({
          time: z.number(),
          q_divergence: z.object({ precision: z.number(), model: z.number() }).strict(),
          v_divergence: z.object({ precision: z.number(), model: z.number() }).strict(),
        })
        .strict(),
    ),
  })
  .strict();

/** what every command prints with `--json` when it fails (exit code 1, or 2 for usage errors) */
export const ErrorOutputSchema = z
  .object({
    error: z
      .object({
        /** snake_case class of the failure: usage, file_not_found, scene_validation, import, mesh, usd, asset, options, … */
        kind: z.string(),
        message: z.string(),
        /** the file, line, column and scene key path, as far as they are known */
        location: z
          .object({
            file: z.string().optional(),
            line: z.number().int().optional(),
            column: z.number().int().optional(),
            key_path: z.string().optional(),
          })
          .strict()
          .nullable(),
      })
      .strict(),
  })
  .strict();

export type RunOutput = z.infer<typeof RunOutputSchema>;
export type InspectOutput = z.infer<typeof InspectOutputSchema>;
export type AblateOutput = z.infer<typeof AblateOutputSchema>;
export type ErrorOutput = z.infer<typeof ErrorOutputSchema>;
