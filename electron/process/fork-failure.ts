import { readFileSync } from 'node:fs';
import { cgroupDir, cgroupOf, findCgroup2 } from './cgroup.js';

/**
 * Why the OS refused to create a process for a new task, as precisely as it can be told: the
 * process limit of the cgroup Drover runs in (cgroup v2, or the v1 pids controller) when it is
 * full; else the general case.
 */
export function explainForkFailure(): string {
  const full = fullPidsLimit();
  if (full) return `the process limit of Drover's cgroup is reached (${full}); end some tasks or raise the limit`;
  return 'the system refused to create a process (a process limit may be reached)';
}

function fullPidsLimit(): string | null {
  if (process.platform !== 'linux') return null;
  const dirs: string[] = [];
  const hierarchy = findCgroup2();
  const own = cgroupOf('self');
  if (hierarchy && own) {
    // The limit that bites may be any ancestor's.
    for (let path = own; ; path = path.slice(0, path.lastIndexOf('/')) || '/') {
      const dir = cgroupDir(hierarchy, path);
      if (dir) dirs.push(dir);
      if (path === '/') break;
    }
  }
  const v1 = v1PidsDir();
  if (v1) dirs.push(v1);
  for (const dir of dirs) {
    try {
      const max = readFileSync(`${dir}/pids.max`, 'utf8').trim();
      const current = Number(readFileSync(`${dir}/pids.current`, 'utf8').trim());
      if (max !== 'max' && current >= Number(max)) return `${current} of ${max} in ${dir}`;
    } catch {
      /* no pids controller here */
    }
  }
  return null;
}

function v1PidsDir(): string | null {
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((entry) => /^\d+:([^:]*,)?pids(,[^:]*)?:/.test(entry));
    if (!line) return null;
    const path = line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .find((entry) => / - cgroup \S+ \S*\bpids\b/.test(entry));
    const point = mount?.slice(0, mount.indexOf(' - ')).split(' ')[4];
    return point ? `${point}${path === '/' ? '' : path}` : null;
  } catch {
    return null;
  }
}
