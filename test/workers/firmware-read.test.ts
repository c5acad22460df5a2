import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AmtError } from '../../workers/amt/errors.js';
import { readFirmwareVersion } from '../../workers/amt/reads/firmware.js';
import type { WsmanClient } from '../../workers/amt/wsman-client.js';
import type { WsmanItem } from '../../workers/amt/wsman-parse.js';

const item = (instanceId: string, version: string) => ({ className: 'CIM_SoftwareIdentity', properties: { InstanceID: instanceId, VersionString: version } }) as unknown as WsmanItem;

/** Firmware that rejects a selector Get exists; no simulated device does, so this one client is scripted. */
function scriptedClient(get: () => Promise<WsmanItem>): { client: WsmanClient; calls: string[] } {
  const calls: string[] = [];
  const client = {
    get: async () => (calls.push('get'), get()),
    enumerate: async () => (calls.push('enumerate'), [item('Flash', '1.0'), item('AMT', '11.8.50')]),
  } as unknown as WsmanClient;
  return { client, calls };
}

describe('firmware version read', () => {
  it('falls back to Enumerate + Pull when the selector Get is refused with a SOAP Fault', async () => {
    const { client, calls } = scriptedClient(async () => {
      throw new AmtError('AMT_ERR_FAULT', 'invalid selectors', { subcode: 'InvalidSelectors' });
    });
    assert.equal(await readFirmwareVersion(client), '11.8.50');
    assert.deepEqual(calls, ['get', 'enumerate']);
  });

  it('does not hide transport failures behind the fallback', async () => {
    const { client, calls } = scriptedClient(async () => {
      throw new AmtError('AMT_ERR_TIMEOUT', 'no answer');
    });
    await assert.rejects(readFirmwareVersion(client), { code: 'AMT_ERR_TIMEOUT' });
    assert.deepEqual(calls, ['get']);
  });
});
