/** The shape of the firmware's method handlers: who may call, the call's input fields, and the answer. */
import type { SimInstance, SimProps } from '../sim-xml.js';
import type { FirmwareState } from './firmware-state.js';

export type XmlNode = Record<string, unknown>;

/** The request's input as handlers read it (a method's `_INPUT`, or a Put's instance). */
export interface CallInput {
  text(name: string): string | undefined;
  texts(name: string): string[];
  /** The selectors of an endpoint-reference field (e.g. `MpServer`). */
  reference(name: string): Record<string, string> | undefined;
}

export type CallAnswer = { output: SimProps } | { instance: SimInstance } | { fault: 'invalidParameter' | 'actionNotSupported' };

export interface FirmwareCall {
  /** `local`: the local system account (the OS administrator, over LMS); `admin`: the AMT admin once activated; `any`: either. */
  who: 'local' | 'admin' | 'any';
  run(fw: FirmwareState, input: CallInput): CallAnswer;
}

/** A method output with `ReturnValue` (and more fields before it). */
export const returned = (value: number, ...props: SimProps): CallAnswer => ({ output: [...props, ['ReturnValue', value]] });

/** What the firmware answers a call it refuses: a non-zero ReturnValue (1, "internal error": no more detail leaves it), the reason kept. */
export function refused(fw: FirmwareState, why: string): CallAnswer {
  fw.refuse(why);
  return returned(1);
}
