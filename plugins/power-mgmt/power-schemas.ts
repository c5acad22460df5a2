/** JSON Schemas of the power-mgmt requests and responses (added to the OpenAPI document). */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../core/validation/schema-types.js';
import { ACTION_NAMES } from './power-actions.js';

const ACTION = StringEnum(ACTION_NAMES, { description: 'on 2, cycle 5, off 8, reset 10, sleep 4, hibernate 7, soft-off 12, soft-reset 14 (RequestPowerStateChange values)' });
const STATE = { enum: ['on', 'sleep', 'hibernate', 'off', 'unknown'] };
const NULLABLE_INT = { type: ['integer', 'null'] };

export const POWER_STATUS_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'powerState', 'state', 'availableActions'],
  properties: {
    deviceId: { type: 'string' },
    powerState: { ...NULLABLE_INT, description: 'DMTF PowerState from CIM_AssociatedPowerManagementService' },
    state: STATE,
    availableActions: { type: 'array', items: ACTION, description: 'The actions the device offers now (AvailableRequestedPowerStates)' },
  },
};

export const BOOT_TARGETS = ['bios', 'pxe', 'hdd', 'ider-cd', 'ider-floppy'] as const;
const BOOT = StringEnum(BOOT_TARGETS, { description: 'One-time boot setting written before the action: bios (enter BIOS setup), pxe (network boot), ider-cd / ider-floppy (boot from the image an open IDE-R session serves), hdd (clear an earlier choice)' });

export const POWER_ACTION_REQUEST_SCHEMA = Type.Object(
  { action: ACTION, boot: Type.Optional(BOOT) },
  // A boot choice only goes with an action that boots.
  { additionalProperties: false, if: { required: ['boot'] }, then: { properties: { action: { enum: ['on', 'reset', 'cycle'] } } } },
);

const CHANGE_PROPERTIES = {
  deviceId: { type: 'string' },
  returnValue: { ...NULLABLE_INT, description: 'ReturnValue of RequestPowerStateChange; 0 is success' },
  ok: { type: 'boolean' },
  powerState: { ...NULLABLE_INT, description: 'The state re-read after the change (before it when the device refused)' },
  state: STATE,
  confirmed: { type: 'boolean', description: 'The re-read state is the one the action leads to' },
};

export const POWER_CHANGE_RESULT_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'action', 'returnValue', 'ok'],
  properties: { ...CHANGE_PROPERTIES, action: ACTION, boot: BOOT },
};

/** `maxDevices` comes from the plugin options. */
export function powerBulkRequestSchema(maxDevices: number) {
  return Type.Object(
    { deviceIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: maxDevices, uniqueItems: true }), action: ACTION },
    { additionalProperties: false },
  );
}

export const POWER_BULK_RESULT_SCHEMA = {
  type: 'object',
  required: ['action', 'total', 'succeeded', 'failed', 'results'],
  properties: {
    action: ACTION,
    total: { type: 'integer' },
    succeeded: { type: 'integer' },
    failed: { type: 'integer' },
    results: {
      type: 'array',
      description: 'One per requested device, in request order',
      items: {
        type: 'object',
        required: ['deviceId', 'ok'],
        properties: {
          ...CHANGE_PROPERTIES,
          error: {
            type: 'object',
            description: 'The problem a single request for this device would have given',
            properties: { status: { type: 'integer' }, code: { type: 'string' }, detail: { type: 'string' } },
          },
        },
      },
    },
  },
};
