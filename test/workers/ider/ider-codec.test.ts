/**
 * The IDE-R codec on its own: device messages cut from a stream in any pieces (and an unknown type
 * refused), the console's messages byte for byte as PROTOCOL.md gives them, and the ATAPI answers
 * of a read-only drive (unit attention, sense for writes, ranges, no medium, the data commands).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDeviceMessage, deviceMessageLength, DRIVE, IDER, IderEncoder } from '../../../workers/amt/redirection/ider/ider-wire.js';
import { Drive, SENSE } from '../../../workers/amt/redirection/ider/scsi-commands.js';
import { geometryOf } from '../../../workers/amt/redirection/ider/scsi-data.js';

const hex = (b: Buffer) => b.toString('hex');

function commandWritten(seq: number, cdb: number[], cd = true, dma = false): Buffer {
  const m = Buffer.alloc(28);
  m[0] = IDER.commandWritten;
  m.writeUInt32LE(seq, 4);
  m[9] = dma ? 1 : 0;
  m[14] = cd ? 0xb0 : 0xa0;
  m[15] = 0xa0;
  Buffer.from(cdb).copy(m, 16);
  return m;
}

test('device messages are cut whole from any pieces; an OPEN_SESSION reply carries its OEM bytes; an unknown type is refused', () => {
  const reply = Buffer.alloc(33);
  reply[0] = IDER.openReply;
  reply.writeUInt16LE(8192, 16);
  reply[29] = 3;
  const stream = Buffer.concat([reply, commandWritten(1, [0x28, 0, 0, 0, 0, 16, 0, 0, 1]), Buffer.from([IDER.heartbeat, 0, 0, 0, 2, 0, 0, 0])]);
  const lengths: number[] = [];
  let pending = Buffer.alloc(0);
  for (const byte of stream) {
    pending = Buffer.concat([pending, Buffer.from([byte])]);
    const n = deviceMessageLength(pending);
    if (n) {
      lengths.push(n);
      pending = pending.subarray(n);
    }
  }
  assert.deepEqual(lengths, [33, 28, 8]);
  const command = decodeDeviceMessage(commandWritten(7, [0x28, 0, 0, 0, 0, 16, 0, 0, 1], true, true));
  assert.deepEqual({ ...command, cdb: undefined }, { type: IDER.commandWritten, seq: 7, dma: true, drive: DRIVE.cd, command: 0xa0, cdb: undefined });
  assert.throws(() => deviceMessageLength(Buffer.from([0x99, 0, 0, 0, 0, 0, 0, 0])), /unexpected IDE-R message 0x99/);
});

test('the console messages: OPEN_SESSION, the register state, a check condition, a good end and a data header', () => {
  const e = new IderEncoder();
  assert.equal(hex(e.open(30000, 0, 20000)), '40000000' + '00000000' + '3075' + '0000' + '204e' + '01000000');
  assert.equal(hex(e.enable(0x08)), '48000000' + '01000000' + '03' + '09000000');
  const check = e.commandEnd(DRIVE.cd, SENSE.writeProtected);
  assert.equal(hex(check), '51000002' + '02000000' + '00'.repeat(12) + '8770030000' + '00b051' + '072700');
  const good = e.commandEnd(DRIVE.floppy);
  assert.equal(hex(good.subarray(20)), 'c50003000000a050' + '000000');
  const header = Buffer.alloc(34);
  e.dataHeader(header, 0, DRIVE.cd, 2048, true, false);
  assert.equal(hex(header), '54000002' + '04000000' + '00' + '0008' + '00' + 'b5000200' + '0008' + 'b058' + '85000300' + '0000' + 'b050' + '000000' + '000000');
  const dma = Buffer.alloc(34);
  e.dataHeader(dma, 0, DRIVE.cd, 8192, false, true);
  assert.equal(hex(dma.subarray(0, 20)), '54000001' + '05000000' + '00' + '0020' + '00' + 'b4000200' + '0000' + 'b058');
  assert.equal(hex(dma.subarray(20)), '00'.repeat(14));
});

const cdb = (...bytes: number[]) => Buffer.from([...bytes, ...Array(12 - bytes.length).fill(0)]);

test('a CD drive: unit attention once, INQUIRY, capacity, reads in range, writes write-protected, REQUEST SENSE of the last error', () => {
  const drive = new Drive('cd', geometryOf('cd', 10 * 2048 + 100));
  assert.deepEqual(drive.answer(cdb(0x00)), { kind: 'status', sense: SENSE.mediumChanged });
  assert.deepEqual(drive.answer(cdb(0x00)), { kind: 'status' });
  const inquiry = drive.answer(cdb(0x12, 0, 0, 0, 36));
  assert.equal(inquiry.kind === 'data' && inquiry.data[0], 0x05);
  const capacity = drive.answer(cdb(0x25));
  assert.equal(capacity.kind === 'data' && hex(capacity.data), '0000000a00000800'); // 11 blocks: the partial last one counts
  assert.deepEqual(drive.answer(cdb(0x28, 0, 0, 0, 0, 2, 0, 0, 9)), { kind: 'read', lba: 2, blocks: 9 });
  assert.deepEqual(drive.answer(cdb(0xa8, 0, 0, 0, 0, 2, 0, 0, 0, 10)), { kind: 'status', sense: SENSE.outOfRange });
  assert.deepEqual(drive.answer(cdb(0x28, 0, 0, 0, 0, 0, 0, 0, 0)), { kind: 'status' });
  for (const write of [0x0a, 0x2a, 0xaa, 0x2e, 0x04]) assert.deepEqual(drive.answer(cdb(write, 0, 0, 0, 0, 0, 0, 0, 1)), { kind: 'status', sense: SENSE.writeProtected });
  const sense = drive.answer(cdb(0x03, 0, 0, 0, 18));
  assert.equal(sense.kind === 'data' && hex(sense.data.subarray(0, 14)), '70000700000000' + '0a000000002700');
  const cleared = drive.answer(cdb(0x03, 0, 0, 0, 18));
  assert.equal(cleared.kind === 'data' && cleared.data[2], 0);
  assert.deepEqual(drive.answer(cdb(0xff)), { kind: 'status', sense: SENSE.invalidOpcode });
});

test('MODE SENSE says write protected; READ TOC puts the lead-out at the capacity (LBA and MSF); GET CONFIGURATION honours RT 2', () => {
  const drive = new Drive('cd', geometryOf('cd', 300 * 2048));
  const ten = drive.answer(cdb(0x5a, 0, 0x2a, 0, 0, 0, 0, 0x10, 0));
  assert.ok(ten.kind === 'data' && ten.data[3] === 0x80 && ten.data[8] === 0x2a);
  const six = drive.answer(cdb(0x1a, 0, 0x3f, 0, 255));
  assert.ok(six.kind === 'data' && six.data[2] === 0x80 && six.data[0] === six.data.length - 1);
  assert.deepEqual(drive.answer(cdb(0x5a, 0, 0x05, 0, 0, 0, 0, 0x10, 0)), { kind: 'status', sense: SENSE.invalidField }); // no flexible disk page on a CD
  const toc = drive.answer(cdb(0x43, 0, 0, 0, 0, 0, 0, 0, 0x20));
  assert.ok(toc.kind === 'data' && toc.data.readUInt32BE(16) === 300 && toc.data[14] === 0xaa);
  const msf = drive.answer(cdb(0x43, 0x02, 0, 0, 0, 0, 0, 0, 0x20));
  assert.ok(msf.kind === 'data' && hex(msf.data.subarray(16, 20)) === '00000600'); // 450 frames = 00:06:00
  const one = drive.answer(cdb(0x46, 0x02, 0x00, 0x1e, 0, 0, 0, 0x01, 0));
  assert.ok(one.kind === 'data' && one.data.length === 12 && one.data.readUInt16BE(8) === 0x1e);
  assert.deepEqual(drive.answer(cdb(0x4a, 0, 0, 0, 0x10, 0, 0, 0, 8)), { kind: 'status', sense: SENSE.invalidField });
  const event = drive.answer(cdb(0x4a, 1, 0, 0, 0x10, 0, 0, 0, 8));
  assert.ok(event.kind === 'data' && event.data[4] === 2 && event.data[5] === 0x02);
});

test('a drive without a medium answers NOT READY except to INQUIRY and REQUEST SENSE; a floppy reads READ(6) in 512-byte blocks', () => {
  const empty = new Drive('cd', null);
  assert.deepEqual(empty.answer(cdb(0x00)), { kind: 'status', sense: SENSE.notPresent });
  assert.deepEqual(empty.answer(cdb(0x28, 0, 0, 0, 0, 0, 0, 0, 1)), { kind: 'status', sense: SENSE.notPresent });
  assert.equal(empty.answer(cdb(0x12, 0, 0, 0, 36)).kind, 'data');
  const floppy = new Drive('floppy', geometryOf('floppy', 1474560));
  assert.deepEqual(floppy.answer(cdb(0x08, 0, 0, 5, 0)), { kind: 'read', lba: 5, blocks: 256 });
  const capacity = floppy.answer(cdb(0x25));
  assert.equal(capacity.kind === 'data' && hex(capacity.data), '00000b3f00000200');
  const page = floppy.answer(cdb(0x5a, 0, 0x05, 0, 0, 0, 0, 0x10, 0));
  assert.ok(page.kind === 'data' && page.data[12] === 2 && page.data[13] === 18); // 2 heads, 18 sectors
  assert.deepEqual(floppy.answer(cdb(0x43)), { kind: 'status', sense: SENSE.invalidOpcode });
});
