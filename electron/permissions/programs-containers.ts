import { options, type ProgramSpec, type ValueCheck } from './option-parser.js';
import type { Multiplexer } from './programs-git.js';

/**
 * Containers and clusters. A container's own command runs inside it; what is kept out is what
 * reaches the host: mounts, devices, host namespaces, privileges, host files read into it.
 */

const table = (
  text: string,
  extra: Partial<ProgramSpec> = {},
  checks: Readonly<Record<string, ValueCheck>> = {},
): ProgramSpec => ({
  options: options(text, checks),
  ...extra,
});

/** `-e NAME` (without a value) hands the host's own variable to the container: only NAME=value is known to be safe. */
const assignment: ValueCheck = {
  allows: (value) => value.includes('='),
  note: 'NAME=value, never a host variable by name',
};

// Not -v/--volume, --mount, --privileged, --cap-add, --device, --pid, --ipc, --userns, --uts, --cgroupns,
// --security-opt, --network/--net (host), --env-file, --volumes-from, --gpus, -u/--user (host ids).
const RUN = `
  -d -i -t -e|--env= -p= -P -w= -l= -h= -m= --rm --detach --interactive --tty --publish= --publish-all --name= --workdir=
  --label= --hostname= --memory= --cpus= --platform= --pull= --init --read-only --restart= --stop-timeout= --stop-signal=
  --expose= --add-host= --dns= --entrypoint= --health-cmd= --no-healthcheck --tmpfs= --shm-size= --ulimit= --quiet -q`;

function engine(name: string): Multiplexer {
  return {
    summary:
      'ps, images, logs, inspect, build, run, exec, start, stop, pull and the like with the listed options; run and exec never with mounts, devices, host namespaces or privileges',
    subcommands: {
      ps: table('-a -q -s -n= -l -f= --all --quiet --size --last= --latest --filter= --format= --no-trunc'),
      images: table('-a -q -f= --all --quiet --filter= --format= --no-trunc --digests --tree'),
      logs: table('-f -t -n= --follow --timestamps --tail= --since= --until= --details'),
      inspect: table('-f= -s --format= --size --type='),
      version: table('-f= --format='),
      info: table('-f= --format='),
      stats: table('-a --all --no-stream --no-trunc --format='),
      top: table(''),
      port: table(''),
      history: table('-H -q --human --quiet --no-trunc --format='),
      pull: table('-a -q --all-tags --quiet --platform= --disable-content-trust'),
      // Not -o/--output (writes to a host path), --secret and --ssh (hand host secrets in).
      build: {
        options: options(
          '-t= -f= -q --tag= --file= --no-cache --pull --quiet --target= --build-arg= --platform= --progress= --label= --network=',
          {
            '--network': { allows: (value) => value !== 'host', note: 'not host' },
            '--build-arg': assignment,
          },
        ),
      },
      // After the image (or the container), the words are the container's own command, run inside it.
      run: table(RUN, { afterDoubleDash: 'operands', stopAtFirstOperand: true }, { '-e': assignment }),
      exec: table(
        '-d -i -t -e|--env= -w= --detach --interactive --tty --workdir=',
        { stopAtFirstOperand: true },
        { '-e': assignment },
      ),
      start: table('-a -i --attach --interactive'),
      stop: table('-t= --time= -s= --signal='),
      restart: table('-t= --time='),
      rm: table('-f -v --force --volumes'),
      rmi: table('-f --force --no-prune'),
      wait: table(''),
      diff: table(''),
      tag: table(''),
      search: table('--limit= --filter= --format= --no-trunc'),
    },
    never: {
      cp: `${name} cp copies between the host and a container`,
      volume: `${name} volume reaches host storage`,
      plugin: `${name} plugin installs privileged plugins`,
      context: `${name} context changes which engine later commands reach`,
      login: `${name} login stores credentials`,
      system: `${name} system can delete everything`,
      save: `${name} save writes host files`,
      load: `${name} load reads host files`,
      import: `${name} import reads host files`,
      export: `${name} export writes host files`,
      secret: `${name} secret reads host files`,
    },
  };
}

export const docker = engine('docker');
export const podman = engine('podman');

// Shared by kubectl's read-only subcommands. Not --kubeconfig (its exec plugins run programs), --token, --server,
// --as (impersonation), --raw.
const KUBE = `
  -n= -A -o= -l= -w -L= -c= -f -p -R --namespace= --all-namespaces --output= --selector= --field-selector= --watch --watch-only
  --show-labels --sort-by= --no-headers --label-columns= --context= --cluster= --request-timeout= --container= --follow
  --tail= --since= --since-time= --previous --timestamps --all-containers --prefix --max-log-requests= --recursive
  --chunk-size= --show-kind --ignore-not-found --output-watch-events --template= --allow-missing-template-keys
  --show-managed-fields --limit-bytes= --pod-running-timeout= --containers --use-protocol-buffers --sum --api-group=
  --namespaced --verbs= --cached --subresource=`;

const kubeTable = table(KUBE);

export const kubectl: Multiplexer = {
  summary:
    'get, describe, logs, top, explain, version, api-resources, rollout status and history, events with the listed options; not --kubeconfig, --token, --server, --as',
  subcommands: {
    ...Object.fromEntries(
      [
        'get',
        'describe',
        'logs',
        'top',
        'explain',
        'version',
        'api-resources',
        'api-versions',
        'cluster-info',
        'events',
        'wait',
      ].map((command) => [command, kubeTable]),
    ),
    rollout: {
      options: kubeTable.options,
      positionals: (words) =>
        ['status', 'history'].includes(words[0] ?? '')
          ? null
          : `kubectl rollout ${words[0] ?? ''} changes the cluster; only status and history are read-only`,
    },
  },
  never: {
    exec: 'kubectl exec runs commands in the cluster',
    cp: 'kubectl cp copies to and from the host',
    'port-forward': 'kubectl port-forward opens the cluster to the host',
    proxy: 'kubectl proxy opens the cluster API',
    config: 'kubectl config changes which cluster later commands reach',
    plugin: 'kubectl plugins run programs',
    debug: 'kubectl debug starts privileged containers',
    attach: 'kubectl attach reaches a running process',
    run: 'kubectl run starts workloads with any image and command',
    auth: 'kubectl auth can reach credentials',
  },
};
