/** A plugin that cannot be loaded, ordered or registered; the message names the plugins involved. */
export class PluginError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PluginError';
    this.code = code;
  }
}
