import type { IncomingMessage } from 'node:http';

/**
 * Watches the bytes of a request body as the body parser reads them and tells afterwards whether
 * they were valid UTF-8. The parser decodes leniently (an invalid sequence becomes U+FFFD), so this
 * is the only place the difference is still visible. Must be called right before the parser starts
 * reading, in the same tick, so that both see every chunk. Compressed bodies are not checked.
 * @returns a check to call once the body has been read: true when the bytes were valid UTF-8.
 */
export function watchUtf8Body(req: IncomingMessage): () => boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') return () => true;
  const length = req.headers['content-length'];
  const hasBody = length !== undefined ? Number(length) > 0 : req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return () => true;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let valid = true;
  const check = (chunk?: Buffer) => {
    if (!valid) return;
    try {
      if (chunk) decoder.decode(chunk, { stream: true });
      else decoder.decode();
    } catch {
      valid = false;
    }
  };
  req.on('data', check);
  return () => {
    // A sequence cut off at the very end shows only when the decoder is flushed.
    if (req.complete) check();
    return valid;
  };
}
