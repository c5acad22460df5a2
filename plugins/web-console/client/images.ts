/** Boot images as the console shows them, and their upload with progress (XMLHttpRequest: fetch reports no upload progress). */
import { ApiError, authorization } from './api.js';
import type { Image, Problem } from './shapes.js';

export type { Image } from './shapes.js';

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

/** Streams `file` to the gateway; `progress` gets the fraction sent (0..1). */
export function uploadImage(file: File, name: string, kind: Image['kind'], progress: (fraction: number) => void): Promise<Image> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/images?name=${encodeURIComponent(name)}&kind=${kind}`);
    for (const [header, value] of Object.entries(authorization())) xhr.setRequestHeader(header, value);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { status: xhr.status };
      }
      if (xhr.status === 201) resolve(body as Image);
      else reject(new ApiError(xhr.status, body as Problem, null));
    };
    xhr.onerror = () => reject(new Error('the upload failed: the connection to the gateway broke'));
    xhr.send(file);
  });
}
