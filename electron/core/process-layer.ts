import { windowsContainers } from '../process/containers-windows.js';
import { unixContainers, type ContainerFactory } from '../process/containers.js';
import { markFor } from '../process/identity.js';
import { unixInspector, windowsInspector, type ProcessInspector } from '../process/inspector.js';
import { MarkScan } from '../process/mark-scan.js';
import { currentUnixOs, type UnixOs } from '../process/unix-os.js';
import { win32Os } from '../process/windows-os.js';
import { PortIndex } from '../pool/port-index.js';
import type { TaskPool } from '../pool/pool.js';

/** How one run finds, holds and watches the processes of its tasks, chosen once for this OS. */
export interface ProcessLayer {
  /** Linux and macOS: the process calls; null on Windows. */
  unixOs: UnixOs | null;
  inspector: ProcessInspector;
  /** A process's OS identity (its start time), recorded so a later run can prove it is the same one. */
  identify: (pid: number) => string | null;
  containers: ContainerFactory;
  /** Which running task listens on which port (Linux only); null elsewhere. */
  ports: PortIndex | null;
}

export function createProcessLayer(options: {
  instanceId: string;
  /** 'group': process groups even where cgroups could be made (tests of the fallback). */
  containment: 'auto' | 'group' | undefined;
  /** The OS process facilities (a fake in tests of the leftover logic). */
  inspector: ProcessInspector | undefined;
  warn: (message: string) => void;
  /** The pool the ports are told to, made after this layer (read only once a scan runs). */
  pool: () => Pick<TaskPool, 'portProcesses' | 'portsChanged'>;
}): ProcessLayer {
  const { instanceId, warn } = options;
  const unixOs = process.platform === 'win32' ? null : currentUnixOs();
  // One scan of this instance's marked processes serves the leftover probes and every task's end.
  const marks = unixOs && new MarkScan(unixOs, markFor(instanceId, '').variable);
  const inspector =
    options.inspector ??
    (unixOs && marks ? unixInspector(unixOs, instanceId, { marks }) : windowsInspector(win32Os(), instanceId, warn));
  const identify = (pid: number) => inspector.identify(pid).processStart;
  const containers: ContainerFactory =
    unixOs && marks
      ? unixContainers({ instanceId, os: unixOs, mode: options.containment ?? 'auto', marks })
      : windowsContainers(win32Os(), identify);
  if (process.platform === 'linux' && containers.kind !== 'cgroup')
    warn(`each task is held in ${containers.description}`);
  // Which running task listens on which port: the mark scan names each task's processes (Linux only).
  const ports =
    marks && process.platform === 'linux'
      ? new PortIndex({
          // From each task's cgroup (a file each); the scan of every process's mark only for tasks without one.
          processes: () => {
            const found = options.pool().portProcesses();
            const unknown = [...found].filter(([, pids]) => pids === null).map(([id]) => id);
            const marked = unknown.length > 0 ? marks.all() : null;
            return new Map([...found].map(([id, pids]) => [id, pids ?? marked?.get(id) ?? []]));
          },
          onChange: (ids) => options.pool().portsChanged(ids),
        })
      : null;
  return { unixOs, inspector, identify, containers, ports };
}
