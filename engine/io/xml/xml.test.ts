import { describe, expect, it } from 'vitest';
import { XmlSyntaxError } from '../assets/errors';
import { numberTokens, parseXml } from './xml';

function fail(text: string, opts = {}): XmlSyntaxError {
  try {
    parseXml(text, { file: 'bad.xml', ...opts });
  } catch (e) {
    expect(e).toBeInstanceOf(XmlSyntaxError);
    return e as XmlSyntaxError;
  }
  throw new Error('expected an XmlSyntaxError');
}

describe('parseXml', () => {
  it('builds an element tree with 1-based positions, attributes and text', () => {
    const root = parseXml(
      '<?xml version="1.0"?>\n<robot name="r">\n  <link name="a"/>\n  <b>x &lt; y<![CDATA[ & z]]></b>\n</robot>',
      {
        file: 'r.urdf',
      },
    );
    expect(root.name).toBe('robot');
    expect(root.attrs).toEqual({ name: 'r' });
    expect([root.line, root.column]).toEqual([2, 1]);
    const [link, b] = root.children;
    expect(link).toMatchObject({ name: 'link', attrs: { name: 'a' }, line: 3, column: 3, file: 'r.urdf' });
    expect(b.text).toBe('x < y & z');
  });

  it('keeps <link> elements with children (no HTML void-tag handling)', () => {
    const root = parseXml('<robot><link name="a"><visual/></link></robot>');
    expect(root.children[0].children.map((c) => c.name)).toEqual(['visual']);
  });

  it('malformed XML gives a typed error with line and column', () => {
    const e = fail('<robot>\n  <link name="a">\n  </joint>\n</robot>');
    expect(e.file).toBe('bad.xml');
    expect(e.line).toBe(3);
    expect(e.column).toBeGreaterThan(1);
    expect(e.message).toMatch(/^bad\.xml:3:\d+: /);
    expect(fail('<a x="1" x="2"/>').reason).toMatch(/duplicate attribute/);
    expect(fail('').reason).toMatch(/root element/);
  });

  it('refuses entity declarations and undefined entities (no expansion)', () => {
    expect(fail('<!DOCTYPE a [<!ENTITY x "yyyy">]><a>&x;</a>').reason).toMatch(/entity/i);
    expect(fail('<a>&bomb;</a>').reason).toMatch(/entity/);
  });

  it('enforces size, depth and element-count limits', () => {
    expect(fail('<a/>', { maxChars: 2 }).reason).toMatch(/exceeds max_xml_chars = 2/);
    expect(fail('<a><a><a></a></a></a>', { maxDepth: 2 }).reason).toMatch(/deeper than max_xml_depth = 2/);
    expect(fail('<a><b/><b/><b/></a>', { maxElements: 3 }).reason).toMatch(/more than 3 elements/);
  });
});

describe('numberTokens', () => {
  it('reads white-space-separated numbers as split + Number did, ±inf included', () => {
    expect(numberTokens(' 1 -2.5e3\tinf\n-INF +inf\u00a0x 0x10 ')).toEqual([
      1,
      -2500,
      Infinity,
      -Infinity,
      Infinity,
      NaN,
      16,
    ]);
    expect(numberTokens('')).toEqual([]);
    expect(numberTokens(' \n ')).toEqual([]);
  });
});
