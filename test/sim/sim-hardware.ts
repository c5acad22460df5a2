/** Hardware inventory instances of a simulated device, shaped like the CIM vectors (a NUC). */
import type { DeviceState } from './device-state.js';
import { datetime, type SimInstance } from './sim-xml.js';

export function chassis(s: DeviceState): SimInstance {
  return {
    className: 'CIM_Chassis',
    props: [
      ['ChassisPackageType', 0],
      ['CreationClassName', 'CIM_Chassis'],
      ['ElementName', 'Managed System Chassis'],
      ['Manufacturer', 'Intel(R) Client Systems'],
      ['Model', 'NUC9V7QNX'],
      ['OperationalStatus', 0],
      ['PackageType', 3],
      ['SerialNumber', `JR${s.config.serial}`],
      ['Tag', 'CIM_Chassis'],
      ['Version', 'K47174-402'],
    ],
  };
}

export function card(s: DeviceState): SimInstance {
  return {
    className: 'CIM_Card',
    props: [
      ['CanBeFRUed', true],
      ['CreationClassName', 'CIM_Card'],
      ['ElementName', 'Managed System Base Board'],
      ['Manufacturer', 'Intel Corporation'],
      ['Model', 'NUC9V7QNB'],
      ['OperationalStatus', 0],
      ['PackageType', 9],
      ['SerialNumber', `KN${s.config.serial}`],
      ['Tag', 'CIM_Card'],
      ['Version', 'K47180-402'],
    ],
  };
}

export const BIOS: SimInstance = {
  className: 'CIM_BIOSElement',
  props: [
    ['ElementName', 'Primary BIOS'],
    ['Manufacturer', 'Intel Corp.'],
    ['Name', 'Primary BIOS'],
    ['OperationalStatus', 0],
    ['PrimaryBIOS', true],
    ['ReleaseDate', datetime('2020-08-10T00:00:00Z')],
    ['SoftwareElementID', 'QNCFLX70.0054.2020.0810.2227'],
    ['SoftwareElementState', 2],
    ['TargetOperatingSystem', 66],
    ['Version', 'QNCFLX70.0054.2020.0810.2227'],
  ],
};

export const PROCESSOR: SimInstance = {
  className: 'CIM_Processor',
  props: [
    ['CPUStatus', 1],
    ['CreationClassName', 'CIM_Processor'],
    ['CurrentClockSpeed', 2400],
    ['DeviceID', 'CPU 0'],
    ['ElementName', 'Managed System CPU'],
    ['EnabledState', 2],
    ['Family', 198],
    ['MaxClockSpeed', 8300],
    ['OperationalStatus', 0],
    ['Role', 'Central'],
    ['Stepping', 13],
    ['SystemCreationClassName', 'CIM_ComputerSystem'],
    ['SystemName', 'ManagedSystem'],
    ['UpgradeMethod', 52],
  ],
};

export function memory(s: DeviceState, bank: number): SimInstance {
  return {
    className: 'CIM_PhysicalMemory',
    props: [
      ['BankLabel', `BANK ${bank}`],
      ['Capacity', 17179869184],
      ['ConfiguredMemoryClockSpeed', 2400],
      ['CreationClassName', 'CIM_PhysicalMemory'],
      ['ElementName', 'Managed System Memory Chip'],
      ['FormFactor', 13],
      ['IsSpeedInMhz', true],
      ['Manufacturer', '859B'],
      ['MaxMemorySpeed', 2400],
      ['MemoryType', 26],
      ['PartNumber', 'CT16G4SFD824A.M16FE '],
      ['SerialNumber', `${s.config.serial.slice(0, 6)}${bank}0`],
      ['Speed', 0],
      ['Tag', bank === 0 ? '9876543210' : `9876543210 (#${bank})`],
    ],
  };
}

export function media(index: number, size: number): SimInstance {
  return {
    className: 'CIM_MediaAccessDevice',
    props: [
      ['Capabilities', 4],
      ['CreationClassName', 'CIM_MediaAccessDevice'],
      ['DeviceID', `MEDIA DEV ${index}`],
      ['ElementName', 'Managed System Media Access Device'],
      ['EnabledDefault', 2],
      ['EnabledState', 0],
      ['MaxMediaSize', size],
      ['OperationalStatus', 0],
      ['RequestedState', 12],
      ['Security', 2],
      ['SystemCreationClassName', 'CIM_ComputerSystem'],
      ['SystemName', 'ManagedSystem'],
    ],
  };
}

export const CHIP: SimInstance = {
  className: 'CIM_Chip',
  props: [
    ['CanBeFRUed', true],
    ['CreationClassName', 'CIM_Chip'],
    ['ElementName', 'Managed System Processor Chip'],
    ['Manufacturer', 'Intel(R) Corporation'],
    ['OperationalStatus', 0],
    ['Tag', 'CPU 0'],
    ['Version', 'Intel(R) Core(TM) i7-9850H CPU @ 2.60GHz'],
  ],
};
