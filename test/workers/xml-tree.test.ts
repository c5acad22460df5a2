import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseXmlTree } from '../../workers/amt/xml-tree.js';

describe('XML tree of a WS-Management answer', () => {
  it('reads elements by local name: text, repeats as lists, attributes as @name after children and text', () => {
    const tree = parseXmlTree(
      '<a:E xmlns:a="u" xmlns:z="v"><a:B><a:x>1 &amp; 2 &lt;3&gt; &#65;&#x42;</a:x>' +
        '<a:y q="a&amp;b" xmlns:k="k">t</a:y><a:y/><a:y></a:y><a:y z:n="1"/><a:w xmlns:k="k">only ns</a:w>\n' +
        '  <a:m r="1">  pre <a:c>c</a:c> post  </a:m></a:B></a:E>',
    );
    assert.deepEqual(tree, {
      E: {
        B: {
          x: '1 & 2 <3> AB',
          y: [{ '#text': 't', '@q': 'a&b' }, '', '', { '@n': '1' }],
          w: 'only ns',
          m: { c: 'c', '#text': 'prepost', '@r': '1' },
        },
      },
    });
    // The order readers that take an element's first value rely on.
    assert.deepEqual(Object.keys((tree['E'] as { B: { m: object } }).B.m), ['c', '#text', '@r']);
  });

  it('keeps CDATA as written and an undeclared entity literal', () => {
    assert.deepEqual(parseXmlTree('<E><v><![CDATA[ raw & <stuff> ]]></v><u>&foo; x</u></E>'), { E: { v: ' raw & <stuff> ', u: '&foo; x' } });
  });

  it('refuses what is not well-formed XML, and nesting beyond the bound', () => {
    assert.throws(() => parseXmlTree('<E><a></b></E>'));
    assert.throws(() => parseXmlTree('<E><a x=1/></E>'));
    assert.throws(() => parseXmlTree('<E>&#0;</E>'));
    const deep = (n: number) => '<e>'.repeat(n) + '</e>'.repeat(n);
    assert.doesNotThrow(() => parseXmlTree(deep(10), 10));
    assert.throws(() => parseXmlTree(deep(11), 10), /nested deeper than 10/);
  });
});
