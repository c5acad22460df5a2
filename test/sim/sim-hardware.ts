/**
 * Hardware inventory instances of a simulated device: the vectors' machine (a NUC), each device with
 * serial numbers of its own.
 */
import type { DeviceState } from './device-state.js';
import type { SimInstance } from './sim-xml.js';
import { instanceTemplate, instanceTemplates } from './answers/answer-templates.js';

const CHASSIS = instanceTemplate('vectors/cim/chassis/get.xml');
const CARD = instanceTemplate('vectors/cim/card/get.xml');
const MEMORY = instanceTemplates('vectors/cim/physical/memory/pull.xml');

export const chassis = (s: DeviceState): SimInstance => CHASSIS.with({ SerialNumber: `JR${s.config.serial}` });
export const card = (s: DeviceState): SimInstance => CARD.with({ SerialNumber: `KN${s.config.serial}` });
export const BIOS: SimInstance = instanceTemplate('vectors/cim/bios/element/get.xml').with();
export const PROCESSOR: SimInstance = instanceTemplate('vectors/cim/physical/processor/get.xml').with();
export const CHIP: SimInstance = instanceTemplate('vectors/cim/chip/get.xml').with();
export const MEDIA: SimInstance[] = instanceTemplates('vectors/cim/mediaaccess/pull.xml').map((item) => item.with());

/** The memory modules, with serial numbers of this device (the vector's: 8 hex digits). */
export const memory = (s: DeviceState): SimInstance[] => MEMORY.map((module, i) => module.with({ SerialNumber: `${s.config.serial.slice(0, 6)}${i}0` }));
