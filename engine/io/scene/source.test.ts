import { describe, expect, it } from 'vitest';
import { SceneValidationError } from './errors';
import { loadSceneText } from './load';
import { locateKeyPath, parseSceneText } from './source';

function validationError(text: string, file: string): SceneValidationError {
  try {
    loadSceneText(text, file);
  } catch (e) {
    if (e instanceof SceneValidationError) return e;
    throw e;
  }
  throw new Error('expected a validation error');
}

describe('scene source positions (JSON by its key-path scanner, YAML by yaml)', () => {
  const json = [
    '{',
    '  "schema_version": 1,',
    '  "bodies": [',
    '    { "id": "a", "shapes": [{ "type": "sphere", "radius": 0.1 }] },',
    '    { "id": "b", "mass": -2, "shapes": [{ "type": "box", "hx": 1, "hy": 1, "hz": 1, "densty": 3 }] }',
    '  ]',
    '}',
  ].join('\n');
  /** the 1-based column of `what` on line 5 */
  const col5 = (what: string) => json.split('\n')[4].indexOf(what) + 1;

  it('locates values, keys and list entries of a JSON scene', () => {
    const doc = parseSceneText(json, 'scene.json');
    expect(locateKeyPath(doc, [])).toEqual({ file: 'scene.json', line: 1, column: 1 });
    expect(locateKeyPath(doc, ['bodies', 1, 'mass'])).toMatchObject({ line: 5, column: col5('-2') });
    expect(locateKeyPath(doc, ['bodies', 1, 'mass'], true)).toMatchObject({
      line: 5,
      column: col5('"mass"'),
    });
    expect(locateKeyPath(doc, ['bodies', 1])).toMatchObject({ line: 5, column: 5 });
    // as deep as the text goes: a missing index or key stops at its parent
    expect(locateKeyPath(doc, ['bodies', 7, 'id'])).toMatchObject({ line: 3, column: 13 });
  });

  it('reports validation errors of a JSON scene at their line and column', () => {
    const e = validationError(json, 'scene.json');
    const at = Object.fromEntries(e.issues.map((i) => [i.path, [i.line, i.column]]));
    expect(at['bodies[1].mass']).toEqual([5, col5('-2')]);
    expect(at['bodies[1].shapes[0].densty']).toEqual([5, col5('"densty"')]);
  });

  it('locates YAML the same way', () => {
    const doc = parseSceneText('schema_version: 1\nbodies:\n  - id: a\n    mass: -2\n', 's.yaml');
    expect(locateKeyPath(doc, ['bodies', 0, 'mass'])).toMatchObject({ line: 4, column: 11 });
    expect(locateKeyPath(doc, ['bodies', 0, 'mass'], true)).toMatchObject({ line: 4, column: 5 });
  });
});
