/**
 * ordered-tree.ts against fast-xml-parser itself: the ordered tree shaped by it equals, key order
 * included, what the library's default mode gives with the options wsman-parse.ts uses, on every
 * fixture and on documents made to reach each rule (repeats, attributes beside text or children,
 * empty and self-closing elements, text split around children, names an object inherits).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { shapeOrdered, type OrderedNode } from '../../workers/amt/ordered-tree.js';
import { WSMAN_PARSER_OPTIONS } from '../../workers/amt/wsman-parse.js';
import { allFixtureFiles, readFixture } from './helpers.js';

// The options wsman-parse.ts parses with, in the library's default shape and in the ordered one.
const byDefault = new XMLParser(WSMAN_PARSER_OPTIONS);
const ordered = new XMLParser({ ...WSMAN_PARSER_OPTIONS, preserveOrder: true });
/** The JSON of the result, or what was thrown: the library refuses some names in both modes. */
const outcome = (parse: () => unknown): string => {
  try {
    return JSON.stringify(parse());
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
};
const shaped = (xml: string) => outcome(() => shapeOrdered(ordered.parse(xml) as OrderedNode[]));
const expected = (xml: string) => outcome(() => byDefault.parse(xml));

const documents: Record<string, string> = {
  'repeated elements, also apart': '<r><a>1</a><b>x</b><a>2</a><a>3</a></r>',
  'attributes beside text': '<r><s Name="InstanceID">AMT</s><s Name="x" v="y">z</s></r>',
  'attributes beside children': '<r><s Name="n"><c>1</c><c>2</c></s></r>',
  'empty, self-closing and attribute-only elements': '<r><e></e><f/><g a="1"/><h a="1"></h><i>  </i></r>',
  'text split around children': '<r>one<c>x</c>two<d/>three</r>',
  'repeats of text-only, empty and structured elements': '<r><a/><a>t</a><a><b>1</b></a><a k="v"/></r>',
  'names an object inherits': '<r><toString>2</toString><valueOf>1</valueOf><toString>3</toString><hasOwnProperty/></r>',
  'a name the library refuses': '<r><constructor>1</constructor></r>',
  'prefixes and xmlns dropped': '<a:r xmlns:a="urn:a" xmlns="urn:d"><a:x a:y="1">t</a:x><z xmlns:q="urn:q"/></a:r>',
  'several top-level nodes': '<?xml version="1.0"?><!-- c --><r>1</r>',
  'deep nesting': '<a><b><c><d><e k="1"><f>x</f></e></d></c></b></a>',
};

describe('shapeOrdered', () => {
  for (const [name, xml] of Object.entries(documents)) {
    it(`shapes ${name} as the default mode does`, () => assert.equal(shaped(xml), expected(xml)));
  }
  it('shapes every WS-Management fixture as the default mode does', () => {
    const files = allFixtureFiles();
    assert.ok(files.length >= 25);
    for (const file of files) assert.equal(shaped(readFixture(file)), expected(readFixture(file)), file);
  });
});
