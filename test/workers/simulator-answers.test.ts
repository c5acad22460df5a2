/**
 * The simulator answers as the published vectors do (`test/sim/answers`): each of its answers that a
 * vector shows agrees with the vector's copy in `test/sim/answers/vectors` (or the second-source
 * template) in namespaces, header, elements, their order and how each value is written, and in
 * every value but those the device's state decides; every class and method it serves has such a
 * case. The conformance suite checks the copies against `shared/wsman-vectors` itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ANSWER_CASES, sampleDevice } from '../sim/answers/answer-cases.js';
import { compareAnswer } from '../sim/answers/compare-answer.js';
import { OUTPUT_FILES } from '../sim/answers/method-outputs.js';
import { childNamed, parseXmlTree, type XmlTree } from '../sim/answers/xml-tree.js';
import { ENUMERABLE, GETTABLE } from '../sim/sim-classes.js';
import { REDIRECTION_INSTANCES } from '../sim/redirection/redir-wsman.js';

const ANSWERS = fileURLToPath(new URL('../sim/answers/', import.meta.url));
const local = (vector: string) => parseXmlTree(readFileSync(`${ANSWERS}${vector.startsWith('second-source/') ? '' : 'vectors/'}${vector}`, 'utf8'));
const instanceOf = (vector: string): XmlTree => {
  const answer = childNamed(local(vector), 'Body')!.children[0]!;
  return answer.name === 'PullResponse' ? childNamed(answer, 'Items')!.children[0]! : answer;
};

for (const c of ANSWER_CASES) {
  test(`the simulator's answer agrees with ${c.vector}${c.note ? ` (${c.note})` : ''}`, () => {
    const itemVectors = new Map(Object.entries(c.itemVectors ?? {}).map(([className, vector]) => [className, instanceOf(vector)]));
    const differences = compareAnswer(parseXmlTree(c.ask(sampleDevice())), local(c.vector), { live: new Set(c.live), itemVectors });
    assert.deepEqual(differences, []);
  });
}

test('every class and method the simulator serves is among the compared answers', () => {
  const answered = new Set<string>();
  for (const c of ANSWER_CASES) {
    const header = childNamed(parseXmlTree(c.ask(sampleDevice())), 'Header')!;
    const uri = childNamed(header, 'ResourceURI')!.text;
    const action = childNamed(header, 'Action')!.text;
    answered.add(uri.slice(uri.lastIndexOf('/') + 1));
    if (action.startsWith(`${uri}/`)) answered.add(`${uri.slice(uri.lastIndexOf('/') + 1)}.${action.slice(uri.length + 1).replace(/Response$/, '')}`);
  }
  const served = [
    ...Object.keys(ENUMERABLE),
    ...Object.keys(GETTABLE),
    ...Object.keys(REDIRECTION_INSTANCES),
    ...Object.entries(OUTPUT_FILES).flatMap(([className, methods]) => Object.keys(methods).map((method) => `${className}.${method}`)),
  ];
  assert.deepEqual([...new Set(served.filter((s) => !answered.has(s)))], []);
});

test('a template keeps how firmware writes each value: a boolean where it sends 1/0 is written 1/0, a property it does not send cannot be added', async () => {
  const { instanceTemplate } = await import('../sim/answers/answer-templates.js');
  const optIn = instanceTemplate('vectors/ips/optin/get.xml');
  assert.deepEqual(optIn.with({ CanModifyOptInPolicy: false }).props.find(([name]) => name === 'CanModifyOptInPolicy'), ['CanModifyOptInPolicy', '0']);
  assert.throws(() => optIn.with({ OptInState: 'two' }), /writes it as integer/);
  assert.throws(() => instanceTemplate('vectors/amt/redirectionservice/get.xml').with({ ListenerEnabled: 1 }), /writes it as boolean/);
  assert.throws(() => optIn.with({ CanModifyOptInPolicyEx: 1 }), /has no CanModifyOptInPolicyEx/);
});
