/** The group a unix socket file is given (`socketGroup`): a numeric gid, or a name looked up in /etc/group. */
import { readFileSync } from 'node:fs';

export function resolveGroup(group: string, groupFile = '/etc/group'): number {
  if (/^[0-9]+$/.test(group)) return Number(group);
  let lines: string[] = [];
  try {
    lines = readFileSync(groupFile, 'utf8').split('\n');
  } catch {
    // No group file: only numeric groups can be named.
  }
  const entry = lines.map((line) => line.split(':')).find((fields) => fields[0] === group);
  const gid = entry ? Number(entry[2]) : NaN;
  if (!Number.isInteger(gid)) throw new Error(`plugins.cira.options.socketGroup: no group '${group}' in ${groupFile}; give a group name from it or a numeric gid`);
  return gid;
}
