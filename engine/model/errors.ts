/** a model construction error; `path` locates the offending entity (e.g. "joints[2].parent") */
export class ModelError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'ModelError';
  }
}
