/**
 * Conformance of the simulator (`npm run test:conformance`, beside the vector suite): its answer
 * templates in `test/sim/answers/vectors` are the published vectors unchanged, its answers agree with
 * the vectors themselves (as `npm test` checks them against the copies), and no answer written from
 * a second source has a vector by now. Skips when the vectors are absent.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, test } from 'node:test';
import { ANSWER_CASES, sampleDevice } from '../sim/answers/answer-cases.js';
import { compareAnswer } from '../sim/answers/compare-answer.js';
import { childNamed, parseXmlTree, type XmlTree } from '../sim/answers/xml-tree.js';
import { allVectorFiles, missingVectors, readVector, vectorsAvailable, VECTORS_DIR } from './vectors.js';

const ANSWERS = fileURLToPath(new URL('../sim/answers/', import.meta.url));
const COPIES = join(ANSWERS, 'vectors');

const instanceOf = (vector: string): XmlTree => {
  const answer = childNamed(parseXmlTree(readVector(vector)), 'Body')!.children[0]!;
  return answer.name === 'PullResponse' ? childNamed(answer, 'Items')!.children[0]! : answer;
};

if (!vectorsAvailable()) {
  test('the simulator against the WS-Management vectors', (t) => missingVectors(t));
} else {
  describe("the simulator's answer templates are the published vectors", () => {
    const copies = allVectorFiles(COPIES);
    it('holds copies of vectors', () => assert.ok(copies.length > 20, `only ${copies.length} copies`));
    for (const file of [...copies, 'LICENSE']) {
      it(`test/sim/answers/vectors/${file} is shared/wsman-vectors/${file} unchanged`, () => {
        assert.ok(existsSync(join(VECTORS_DIR, file)), `${file} is not a published vector`);
        assert.ok(readFileSync(join(COPIES, file)).equals(readFileSync(join(VECTORS_DIR, file))), `${file} differs from the vector`);
      });
    }
  });

  describe("the simulator's answers agree with the vectors", () => {
    for (const c of ANSWER_CASES) {
      if (c.vector.startsWith('second-source/')) {
        it(`${c.vector} answers what no vector shows`, () => {
          const published = c.vector.slice('second-source/'.length);
          assert.ok(!existsSync(join(VECTORS_DIR, published)), `a vector exists now (${published}): answer from it instead`);
        });
        continue;
      }
      it(`agrees with ${c.vector}`, () => {
        const itemVectors = new Map(Object.entries(c.itemVectors ?? {}).map(([className, vector]) => [className, instanceOf(vector)]));
        assert.deepEqual(compareAnswer(parseXmlTree(c.ask(sampleDevice())), parseXmlTree(readVector(c.vector)), { live: new Set(c.live), itemVectors }), []);
      });
    }
    it('the copies the simulator answers from are all compared', () => {
      const compared = new Set(ANSWER_CASES.map((c) => c.vector));
      const uncompared = allVectorFiles(COPIES).filter((file) => !compared.has(file) && !Object.values(Object.fromEntries(ANSWER_CASES.flatMap((c) => Object.entries(c.itemVectors ?? {})))).includes(file));
      assert.deepEqual(uncompared, [], `copies no case compares: ${uncompared.map((f) => relative(ANSWERS, join(COPIES, f))).join(', ')}`);
    });
  });
}
