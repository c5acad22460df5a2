/**
 * Errors are recognised by their shape, not by `instanceof`: a plugin may bring its own copy of this
 * package (or of a class), and a copy's error is no instance of ours.
 */
export interface CodedError {
  name: string;
  code: string;
  message: string;
}

/** Whether `err` is an object with a string `code` and `message` (and a `name`, which `Error`s have). */
export function isCodedError(err: unknown): err is CodedError {
  const shape = err as Partial<CodedError> | null;
  return typeof shape === 'object' && shape !== null && typeof shape.code === 'string' && typeof shape.message === 'string' && typeof shape.name === 'string';
}

/** Whether `err` is a coded error of the kind `name` (e.g. `PluginError`), with one of `codes` if given. */
export function isErrorOf(err: unknown, name: string, codes?: readonly string[]): err is CodedError {
  return isCodedError(err) && err.name === name && (codes === undefined || codes.includes(err.code));
}
