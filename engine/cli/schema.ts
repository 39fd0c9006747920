/**
 * JSON output schemas of the CLI (`--json`), one zod schema per command. Tests validate real
 * outputs against them; `npm run sim -- schema` prints them as JSON Schema for other tools.
 */
import { z } from 'zod';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const quat = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const finiteOrNull = z.number().nullable();

export const RunOutputSchema = z
  .object({
    scene: z.string(),
    steps: z.number().int().nonnegative(),
    dt: z.number().positive(),
    time: z.number(),
    options: z.record(z.union([z.string(), z.number(), z.boolean()])),
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
        status: z.enum(['converged', 'max_iterations', 'line_search_failed', 'invalid_input']),
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
        precision: z.record(z.string()),
      })
      .strict()
      .optional(),
  })
  .strict();

export const InspectOutputSchema = z
  .object({
    model: z.string(),
    /** the loader's warnings: what it ignored, approximated or could not read (`unsupported: …` first-class) */
    warnings: z.array(z.string()),
    /** what the loader did that the user should know of, though nothing is wrong (a robot placed on the ground) */
    notes: z.array(z.string()),
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
    mass_matrix: z.array(z.array(z.number())),
    bias_forces: z.array(z.number()),
  })
  .strict();

export const AblateOutputSchema = z
  .object({
    scene: z.string(),
    steps: z.number().int(),
    dt: z.number(),
    one_step: z.array(
      z.object({ time: z.number(), delta_precision: z.number(), delta_model: z.number() }).strict(),
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

export type RunOutput = z.infer<typeof RunOutputSchema>;
export type InspectOutput = z.infer<typeof InspectOutputSchema>;
export type AblateOutput = z.infer<typeof AblateOutputSchema>;
