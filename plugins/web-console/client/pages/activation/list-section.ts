/** What the Activation page's lists share: load a list, act on it (ask, call, reload, say what happened). */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../../api.js';

export function useListSection<T>(path: string) {
  const [list, setList] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const reload = () => api<T[]>('GET', path).then(setList, (err) => setError(errorText(err)));
  useEffect(() => void reload(), [path]);
  /** Asks `question` (none: no question), runs `call`, reloads the list, then says `done`, or the problem. */
  const act = async (question: string | null, call: () => Promise<unknown>, done: string) => {
    if (question && !confirm(question)) return;
    setError(null);
    setNotice(null);
    try {
      await call();
      await reload();
      setNotice(done);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return { list, error, notice, setError, setNotice, reload, act };
}
