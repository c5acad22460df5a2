/**
 * The power-mgmt requests and responses (added to the OpenAPI document) and the PowerStateChanged
 * event: TypeBox schemas, their types derived. TypeBox, shape modules and power-actions.ts (plain
 * data) only, so that the console can import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../core/validation/schema-types.js';
import { ACTION_NAMES } from './power-actions.js';

const ACTION = StringEnum(ACTION_NAMES, { description: 'on 2, cycle 5, off 8, reset 10, sleep 4, hibernate 7, soft-off 12, soft-reset 14 (RequestPowerStateChange values)' });
const STATE = StringEnum(['on', 'sleep', 'hibernate', 'off', 'unknown']);
const NullableInt = (description: string) => Nullable(Type.Integer({ description }));

export const POWER_STATUS_SCHEMA = Type.Object({
  deviceId: Type.String(),
  powerState: NullableInt('DMTF PowerState from CIM_AssociatedPowerManagementService'),
  state: STATE,
  availableActions: Type.Array(ACTION, { description: 'The actions the device offers now (AvailableRequestedPowerStates)' }),
});

export type PowerStatus = Static<typeof POWER_STATUS_SCHEMA>;

export const BOOT_TARGETS = ['bios', 'pxe', 'hdd', 'ider-cd', 'ider-floppy'] as const;
export type BootTarget = (typeof BOOT_TARGETS)[number];
const BOOT = StringEnum(BOOT_TARGETS, { description: 'One-time boot setting written before the action: bios (enter BIOS setup), pxe (network boot), ider-cd / ider-floppy (boot from the image an open IDE-R session serves), hdd (clear an earlier choice)' });

export const POWER_ACTION_REQUEST_SCHEMA = Type.Object(
  { action: ACTION, boot: Type.Optional(BOOT) },
  // A boot choice only goes with an action that boots.
  { additionalProperties: false, if: { required: ['boot'] }, then: { properties: { action: { enum: ['on', 'reset', 'cycle'] } } } },
);

const CHANGE_PROPERTIES = {
  deviceId: Type.String(),
  returnValue: NullableInt('ReturnValue of RequestPowerStateChange; 0 is success'),
  ok: Type.Boolean(),
  powerState: NullableInt('The state re-read after the change (before it when the device refused); null when it could not be read'),
  state: STATE,
  confirmed: Type.Boolean({ description: 'The re-read state is the one the action leads to' }),
};

export const POWER_CHANGE_RESULT_SCHEMA = Type.Object({
  ...CHANGE_PROPERTIES,
  action: ACTION,
  boot: Type.Optional(StringEnum(BOOT_TARGETS, { description: 'The one-time boot setting written before the action, when one was asked' })),
});

export type PowerChangeResult = Static<typeof POWER_CHANGE_RESULT_SCHEMA>;

/** `maxDevices` comes from the plugin options. */
export function powerBulkRequestSchema(maxDevices: number) {
  return Type.Object(
    { deviceIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: maxDevices, uniqueItems: true }), action: ACTION },
    { additionalProperties: false },
  );
}

const BULK_ITEM_SCHEMA = Type.Object({
  ...CHANGE_PROPERTIES,
  error: Type.Optional(
    Type.Object(
      { status: Type.Integer(), code: Type.String(), detail: Type.String() },
      { description: 'Why the device could not be changed: the problem a single request for it would have given' },
    ),
  ),
});

export type BulkItemResult = Static<typeof BULK_ITEM_SCHEMA>;

export const POWER_BULK_RESULT_SCHEMA = Type.Object({
  action: ACTION,
  total: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  results: Type.Array(BULK_ITEM_SCHEMA, { description: 'One per requested device, in request order' }),
});

export type BulkPowerResult = Static<typeof POWER_BULK_RESULT_SCHEMA>;

/** `PowerStateChanged` on the event bus and the hub: a change was confirmed or re-read. */
export const POWER_STATE_CHANGED_EVENT_SCHEMA = Type.Object({ deviceId: Type.String(), powerState: Type.Integer({ description: 'DMTF PowerState' }) });

export type PowerStateChangedEvent = Static<typeof POWER_STATE_CHANGED_EVENT_SCHEMA>;
