import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orderPlugins } from '../../core/plugins/plugin-order.js';

const p = (name: string, ...dependencies: string[]) => ({ name, dependencies });

test('plugins come after their dependencies, whatever order they are listed in', () => {
  const ordered = orderPlugins([p('soap-mps', 'remote-monitor'), p('remote-monitor', 'rest-api'), p('scan-hub'), p('rest-api')]).map((x) => x.name);
  assert.ok(ordered.indexOf('rest-api') < ordered.indexOf('remote-monitor'));
  assert.ok(ordered.indexOf('remote-monitor') < ordered.indexOf('soap-mps'));
  assert.deepEqual(ordered, orderPlugins([p('rest-api'), p('scan-hub'), p('remote-monitor', 'rest-api'), p('soap-mps', 'remote-monitor')]).map((x) => x.name));
});

test('a missing dependency names both plugins', () => {
  assert.throws(() => orderPlugins([p('power-mgmt', 'rest-api')]), {
    code: 'GW_ERR_PLUGIN_DEPENDENCY_MISSING',
    message: "dependency 'rest-api' of plugin 'power-mgmt' is not enabled",
  });
});

test('a dependency cycle is reported with its path', () => {
  assert.throws(() => orderPlugins([p('a', 'b'), p('b', 'c'), p('c', 'a')]), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GW_ERR_PLUGIN_DEPENDENCY_CYCLE');
    assert.match(err.message, /circular plugin dependency: a -> b -> c -> a/);
    return true;
  });
});

test('an enabled optional dependency is ordered first; an absent one is ignored', () => {
  const o = (name: string, optionalDependencies: string[]) => ({ name, dependencies: [], optionalDependencies });
  const withAudit = orderPlugins([o('aaa', ['zzz-audit']), p('zzz-audit')]).map((x) => x.name);
  assert.deepEqual(withAudit, ['zzz-audit', 'aaa']);
  assert.deepEqual(orderPlugins([o('aaa', ['zzz-audit']), p('bbb')]).map((x) => x.name), ['aaa', 'bbb']);
  assert.throws(() => orderPlugins([o('a', ['b']), p('b', 'a')]), { code: 'GW_ERR_PLUGIN_DEPENDENCY_CYCLE' });
});
