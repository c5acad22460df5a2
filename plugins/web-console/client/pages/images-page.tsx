/** Boot images: upload (streamed, with progress), the list with sizes and SHA-256, delete (refused while a session serves one). */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Field, formatTime, Message } from '../components/field.js';
import { formatBytes, uploadImage, type Image } from '../images.js';
import { can, type Session } from '../session.js';

export function ImagesPage({ session }: { session: Session }) {
  const [list, setList] = useState<Image[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const manage = can(session, 'images:manage');
  const read = () => api<Image[]>('GET', '/images').then(setList, (err) => setError(errorText(err)));
  useEffect(() => void read(), []);

  const remove = async (image: Image) => {
    if (!confirm(`Delete the image ${image.name}?`)) return;
    setError(null);
    try {
      await api('DELETE', `/images/${encodeURIComponent(image.id)}`);
      setNotice(`${image.name} deleted.`);
      await read();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section>
      <h1>Images</h1>
      <p>CD and floppy images the gateway serves to devices by IDE redirection: boot a machine from one on its device page.</p>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {manage && (
        <UploadForm
          onUploaded={(image) => {
            setNotice(`${image.name} uploaded (${formatBytes(image.sizeBytes)}, SHA-256 ${image.sha256}).`);
            void read();
          }}
        />
      )}
      {list && list.length === 0 && <p>No images yet.</p>}
      {list && list.length > 0 && (
        <table aria-label="Images">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Size</th>
              <th scope="col">SHA-256</th>
              <th scope="col">In use</th>
              <th scope="col">Uploaded</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((image) => (
              <tr key={image.id}>
                <td>
                  {image.name}
                  {!image.available && <strong> (file missing on this gateway)</strong>}
                </td>
                <td>{image.kind === 'cd' ? 'CD / DVD' : 'Floppy'}</td>
                <td>{formatBytes(image.sizeBytes)}</td>
                <td>
                  <code title={image.sha256}>{image.sha256.slice(0, 16)}…</code>
                </td>
                <td>{image.inUse ? `${image.inUse} session(s)` : '—'}</td>
                <td>
                  {formatTime(image.createdAt)}
                  {image.createdBy ? ` by ${image.createdBy}` : ''}
                </td>
                {manage && (
                  <td class="row-actions">
                    <button type="button" class="danger" disabled={image.inUse > 0} onClick={() => remove(image)} aria-label={`Delete ${image.name}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function UploadForm({ onUploaded }: { onUploaded: (image: Image) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Image['kind']>('cd');
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const choose = (chosen: File | null) => {
    setFile(chosen);
    if (chosen) {
      setName(chosen.name);
      setKind(/\.(img|ima|flp|vfd)$/i.test(chosen.name) ? 'floppy' : 'cd');
    }
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return setError('Choose an image file.');
    setError(null);
    setProgress(0);
    try {
      onUploaded(await uploadImage(file, name.trim() || file.name, kind, setProgress));
      setFile(null);
      setName('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setProgress(null);
    }
  };

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="upload-title">
      <h2 id="upload-title">Upload an image</h2>
      {error && <Message kind="error">{error}</Message>}
      <Field label="Image file">{(p) => <input {...p} type="file" accept=".iso,.img,.ima,.flp,.vfd" onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)} />}</Field>
      <Field label="Name">{(p) => <input {...p} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
      <Field label="Kind">
        {(p) => (
          <select {...p} value={kind} onChange={(e) => setKind(e.currentTarget.value as Image['kind'])}>
            <option value="cd">CD / DVD (ISO)</option>
            <option value="floppy">Floppy</option>
          </select>
        )}
      </Field>
      {progress !== null && (
        <p>
          <progress max={1} value={progress} aria-label="Upload progress" /> {Math.round(progress * 100)} %
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={progress !== null}>
          Upload
        </button>
      </div>
    </form>
  );
}
