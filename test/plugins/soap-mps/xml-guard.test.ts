import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { XMLValidator } from 'fast-xml-parser';
import { SoapFault } from '../../../plugins/soap-mps/errors.js';
import { parseXmlSafely } from '../../../plugins/soap-mps/xml-guard.js';

const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const NS = 'http://intel.com/wbem/MPSInterface/2010/11';
const ENVELOPE = `<?xml version="1.0" encoding="UTF-8"?>
<s:Envelope xmlns:s="${SOAP11}" xmlns:m="${NS}"><s:Header><h:Session xmlns:h="urn:h" s:mustUnderstand="0" a='1'>x &amp; y &#x41;</h:Session></s:Header><!-- c --><s:Body><m:Pull><m:EnumerationContext><![CDATA[a<b]]></m:EnumerationContext><?pi x?><m:MaxElements>10</m:MaxElements></m:Pull></s:Body></s:Envelope>
`;

function refusal(xml: string): SoapFault {
  try {
    parseXmlSafely(xml);
  } catch (err) {
    assert.ok(err instanceof SoapFault, `a SoapFault, not ${String(err)}`);
    return err;
  }
  assert.fail(`accepted: ${JSON.stringify(xml)}`);
}

describe('the request guard (parseXmlSafely)', () => {
  test('reads a document in one pass: namespaces resolved, references decoded, CDATA kept, comments and PIs skipped', () => {
    const root = parseXmlSafely(ENVELOPE);
    assert.deepEqual([root.ns, root.local], [SOAP11, 'Envelope']);
    const [header, body] = root.children;
    const session = header!.children[0]!;
    assert.deepEqual([session.ns, session.local, session.text], ['urn:h', 'Session', 'x & y A']);
    assert.deepEqual(session.attributes, [
      { ns: SOAP11, local: 'mustUnderstand', value: '0' },
      { ns: '', local: 'a', value: '1' },
    ]);
    const pull = body!.children[0]!;
    assert.deepEqual([pull.ns, pull.local], [NS, 'Pull']);
    assert.deepEqual(
      pull.children.map((c) => [c.local, c.text]),
      [
        ['EnumerationContext', 'a<b'],
        ['MaxElements', '10'],
      ],
    );
    const plain = parseXmlSafely('<a xmlns="urn:d"><b xmlns="">t</b><c/></a>');
    assert.deepEqual(
      [plain.ns, plain.children[0]!.ns, plain.children[1]!.ns],
      ['urn:d', '', 'urn:d'],
    );
  });

  test('refuses what is not well-formed (saxes checks XML 1.0 and namespaces strictly), naming the problem', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /must contain a root element/],
      ['hello', /text data outside of root node/],
      ['<a/><b/>', /only one root/],
      ['<a/>text', /text data outside of root node/],
      ['<a><b></a></b>', /unexpected close tag/],
      ['<a><b>', /unclosed tag: b/],
      ['<a x="1" x="2"/>', /duplicate attribute: x/],
      ['<a xmlns:p="urn:x" xmlns:q="urn:x" p:x="1" q:x="2"/>', /duplicate attribute: \{urn:x\}x/],
      ['<a x="<"/>', /disallowed character/],
      ['<a x=1/>', /unquoted attribute value/],
      ['<a x="1"y="2"/>', /no whitespace between attributes/],
      ['<a:b:c/>', /malformed name/],
      ['<a><!-- x -- y --></a>', /malformed comment/],
      ['<a>]]></a>', /"\]\]>" is disallowed/],
      ['<a>x &amp y</a>', /unclosed tag|entity/],
      ['<a>\u0001</a>', /disallowed character/],
      ['<a>\uD800</a>', /.+/],
      ['<a>&#0;</a>', /malformed character entity/],
      [' <?xml version="1.0"?><a/>', /XML declaration must be at the start/],
      ['<?xml encoding="UTF-8"?><a/>', /expected one of version/],
      ['<?p:i x?><a/>', /disallowed character in processing instruction name/],
      ['<a><!ELEMENT a ANY></a>', /incorrect syntax/],
      ['<q:a/>', /unbound namespace prefix: "q"/],
      ['<a q:x="1"/>', /unbound namespace prefix: "q"/],
      ['<a xmlns:xml="urn:x"/>', /xml prefix must be bound/],
      ['<a xmlns:p=""/>', /undefine prefix/],
      [`${'<a>'.repeat(34)}${'</a>'.repeat(34)}`, /nested deeper than 32 levels/],
    ];
    for (const [xml, message] of cases) {
      const fault = refusal(xml);
      assert.equal(fault.code, 'GW_ERR_SOAP_MALFORMED', `${xml}: ${fault.message}`);
      assert.match(fault.message, /^malformed XML: /);
      assert.match(fault.message, message, xml);
    }
  });

  test('refuses DOCTYPE, entity declarations and entity references other than the predefined ones', () => {
    for (const xml of ['<!DOCTYPE a><a/>', '<a><!ENTITY x "y"></a>', '<!doctype a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>']) {
      const fault = refusal(xml);
      assert.equal(fault.code, 'GW_ERR_SOAP_DOCTYPE');
      assert.match(fault.message, /DOCTYPE and entity declarations are not allowed/);
    }
    const fault = refusal('<a>&xxe;</a>');
    assert.equal(fault.code, 'GW_ERR_SOAP_DOCTYPE');
    assert.match(fault.message, /entity reference &xxe; is not allowed/);
  });

  test('every damaged envelope that fast-xml-parser finds malformed is refused too', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const pieces = ['<', '>', '/', '&', '"', "'", '=', ' ', ':', '!', '?', '-', ']]>', '<!--', '-->', '<a>', '</a>', '<![CDATA[', 'q:'];
    let malformed = 0;
    for (let i = 0; i < 20_000; i++) {
      let xml = ENVELOPE;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(xml.length + 1);
        const kind = random(3);
        if (kind === 0) xml = xml.slice(0, at) + xml.slice(at + 1 + random(3));
        else if (kind === 1) xml = xml.slice(0, at) + pieces[random(pieces.length)] + xml.slice(at);
        else xml = xml.slice(0, at) + xml.charAt(at) + xml.slice(at);
      }
      if (XMLValidator.validate(xml) === true) continue;
      malformed++;
      refusal(xml);
    }
    assert.ok(malformed > 10_000, `${malformed} malformed variants tried`);
  });
});
