/** The event log of a simulated device: PET records of 21 bytes, base64, oldest first. */
import { SeededBytes } from './device-identity.js';

/** Deterministic event log records (21 bytes each, base64), oldest first. */
export function eventLogRecords(seed: string, count: number): string[] {
  const rnd = new SeededBytes(`${seed}/events`);
  const start = Date.UTC(2026, 0, 1) / 1000;
  const kinds: Array<[number, number, number, number]> = [
    // sensor type, event type, offset, entity
    [0x0f, 0x6f, 0x02, 0x22], // BIOS progress
    [0x12, 0x6f, 0x00, 0x23], // system event
    [0x1d, 0x6f, 0x00, 0x22], // boot
    [0x22, 0x6f, 0x05, 0x17], // ACPI power state (S5)
    [0x05, 0x6f, 0x00, 0x17], // chassis intrusion
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const [sensor, type, offset, entity] = rnd.pick(kinds);
    const b = Buffer.alloc(21);
    b.writeUInt32LE(start + i * 3600 + rnd.int(600), 0);
    b[4] = 0xff;
    b[5] = sensor;
    b[6] = type;
    b[7] = offset;
    b[8] = 0x68;
    b[9] = rnd.pick([0x01, 0x02, 0x08, 0x10]);
    b[10] = 0xff;
    b[11] = entity;
    b[12] = 0x00;
    rnd.bytes(8).copy(b, 13);
    out.push(b.toString('base64'));
  }
  return out;
}
