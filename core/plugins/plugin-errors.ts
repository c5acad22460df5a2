import { isErrorOf, type CodedError } from '../util/error-shape.js';

/** A plugin that cannot be loaded, ordered or registered; the message names the plugins involved. */
export class PluginError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PluginError';
    this.code = code;
  }
}

/** Whether `err` is a PluginError, of any copy of the kernel (recognised by its shape). */
export function isPluginError(err: unknown): err is CodedError {
  return isErrorOf(err, 'PluginError');
}
