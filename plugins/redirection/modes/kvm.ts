/**
 * KVM: after the sign-in the client asks for the KVM data channel (0x40) and the device answers
 * (0x41); from then on the stream is the device's RFB, from its ProtocolVersion on, passed through
 * unchanged so noVNC or any RFB client talks to the device's own server.
 */
import { AmtError } from '../../../workers/amt/errors.js';
import type { ModeSpec } from './mode.js';

const KVM_SETUP = Buffer.from([0x40, 0, 0, 0, 0, 0, 0, 0]);

export const KVM_MODE: ModeSpec = {
  mode: 'kvm',
  async begin(reader, stream) {
    stream.write(KVM_SETUP);
    const reply = await reader.read(8);
    if (reply[0] !== 0x41) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'the device did not open its KVM data channel');
    return { fromDevice: (chunk) => [chunk], toDevice: (data) => [data], passThrough: true };
  },
};
