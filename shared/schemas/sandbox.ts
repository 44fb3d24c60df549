import { z } from 'zod';
import { SANDBOX_REFUSALS_MAX } from '../domain/limits.js';

/**
 * The sandbox (issue 19): what a sandboxed command may read, write and reach. Reads are allowed
 * everywhere but the deny list; writes only in the session's working folder, the system temp
 * folder and the folders listed here; network only to the hosts listed (or approved for a
 * session); Unix sockets only those listed. One schema gives the settings file's section, the
 * contract's validation and the page's types.
 */

export const SANDBOX_PATHS_MAX = 200;
export const SANDBOX_HOSTS_MAX = 500;
const PATH_MAX = 4096;
const HOST_MAX = 260;

/**
 * A folder or file the policy names: absolute, or under the home folder (`~/…`). Relative paths
 * would mean a different place for every session, so they are refused; so are globs (bubblewrap
 * binds real paths) and control characters.
 */
export const SandboxPathSchema = z
  .string()
  .min(1)
  .max(PATH_MAX)
  .refine((path) => path.startsWith('/') || path === '~' || path.startsWith('~/'), {
    message: 'must be an absolute path or start with ~/',
  })
  .refine((path) => !/[\u0000-\u001f\u007f]/.test(path), { message: 'must not contain control characters' })
  .refine((path) => !/[*?[\]{}]/.test(path), { message: 'must be a plain path, without glob characters' })
  .refine((path) => !path.split('/').includes('..'), { message: 'must not climb with ..' });

/**
 * A host a sandboxed command may reach: a name (`registry.npmjs.org`), a wildcard for its
 * subdomains (`*.github.com`), an IPv4 address or a bracketed IPv6 one, each with an optional
 * `:port` that limits it to that port.
 */
const HOST_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;
export function hostPatternProblem(value: string): string | null {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  const host = match?.[1] ?? '';
  const port = match?.[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return 'has a port outside 1–65535';
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(value.trim().toLowerCase()))
    return 'is a URL: give the host alone (api.example.com:443)';
  if (host.includes(':') && !IPV6.test(host)) return 'is an IPv6 address without brackets ([::1])';
  if (!HOST_NAME.test(host) && !IPV4.test(host) && !IPV6.test(host))
    return 'is not a host name, *.domain, IP address or [IPv6] (with an optional :port)';
  return null;
}
export const SandboxHostSchema = z
  .string()
  .min(1)
  .max(HOST_MAX)
  .superRefine((value, context) => {
    const problem = hostPatternProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
  .transform((value) => value.trim().toLowerCase());

/** Reads no sandboxed command gets: credentials, keys, browser profiles and keychains (Drover's own data folder is always added). */
export const DEFAULT_DENY_READ: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.config/gcloud',
  '~/.kube',
  '~/.gnupg',
  '~/.netrc',
  '~/.npmrc',
  '~/.docker/config.json',
  '~/.git-credentials',
  '~/.config/gh',
  '~/.azure',
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/.mozilla',
  '~/.config/google-chrome',
  '~/.config/chromium',
  '~/.config/BraveSoftware',
  '~/.config/microsoft-edge',
  '~/snap/firefox',
  '~/Library/Keychains',
  '~/Library/Cookies',
  '~/Library/Application Support/Google/Chrome',
  '~/Library/Application Support/Firefox',
  '~/Library/Safari',
];

/** Package registries, reachable from the sandbox unless the person edits the list. */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'static.crates.io',
  'index.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
  'rubygems.org',
  'repo.maven.apache.org',
  'deb.debian.org',
];

/** What the sandbox does, as settings.json holds it (each key optional there; defaults below). */
export const SandboxFieldsSchema = z.object({
  /** The model's commands (foreground, background, monitors, sub-agents') run in the sandbox where this machine has one. */
  enabled: z.boolean(),
  /** The operator's own `!` and `&` lines run in the sandbox too (off: they run as the person, outside). */
  operatorLines: z.boolean(),
  /** A command the gate would ask about runs without asking when it runs in the sandbox. */
  runWithoutAsking: z.boolean(),
  /** Paths no sandboxed command may read (Drover's data folder is always among them). */
  denyRead: z.array(SandboxPathSchema).max(SANDBOX_PATHS_MAX),
  /** Folders sandboxed commands may write besides the working folder and the temp folder (caches: ~/.npm, ~/.cache/pip). */
  writablePaths: z.array(SandboxPathSchema).max(SANDBOX_PATHS_MAX),
  /** Hosts sandboxed commands may reach. */
  allowedHosts: z.array(SandboxHostSchema).max(SANDBOX_HOSTS_MAX),
  /** Unix sockets sandboxed commands may connect to (the Docker socket is not, unless listed). */
  allowUnixSockets: z.array(SandboxPathSchema).max(SANDBOX_PATHS_MAX),
});
export type SandboxPolicy = z.infer<typeof SandboxFieldsSchema>;

export const SANDBOX_DEFAULTS: SandboxPolicy = {
  enabled: true,
  operatorLines: false,
  runWithoutAsking: false,
  denyRead: [...DEFAULT_DENY_READ],
  writablePaths: [],
  allowedHosts: [...DEFAULT_ALLOWED_HOSTS],
  allowUnixSockets: [],
};

/** The section in settings.json: a key it does not name is refused, by name. */
export const SandboxSettingsSchema = SandboxFieldsSchema.partial().strict();
export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;

/** The fields' defaults under the file's values. */
export function sandboxPolicyOf(settings: SandboxSettings | undefined): SandboxPolicy {
  const policy: SandboxPolicy = { ...SANDBOX_DEFAULTS };
  for (const [key, value] of Object.entries(settings ?? {}))
    if (value !== undefined) (policy as Record<string, unknown>)[key] = value;
  return policy;
}

/** Whether this machine can sandbox commands, and why not. */
export const SandboxStatusSchema = z.object({
  available: z.boolean(),
  /** What isolates commands here, in words ("bubblewrap, with network through Drover's proxy"), or why nothing does. */
  detail: z.string(),
  platform: z.string(),
});
export type SandboxStatus = z.infer<typeof SandboxStatusSchema>;

/** Something the sandbox refused a task: a path it tried to write (or open), or a host it tried to reach. */
export const SandboxRefusalSchema = z.object({
  kind: z.enum(['path', 'host']),
  /** The path, or `host:port`. */
  target: z.string(),
  /** The operation or the proxy's reason, in a few words ("openat", "not on the allow list"). */
  detail: z.string(),
  at: TimestampLike(),
});
export type SandboxRefusal = z.infer<typeof SandboxRefusalSchema>;
function TimestampLike() {
  return z.iso.datetime();
}

export { SANDBOX_REFUSALS_MAX };

/** A session's own hosts, approved by the person for this session while the app runs. */
export const SessionSandboxSchema = z.object({
  sessionId: z.string(),
  /** The policy in force (settings), for the page to show. */
  policy: SandboxFieldsSchema,
  /** Hosts allowed for this session on top of the policy's. */
  hosts: z.array(z.string()),
  status: SandboxStatusSchema,
  /** Whether the model's commands in this session run in the sandbox now. */
  active: z.boolean(),
});
export type SessionSandbox = z.infer<typeof SessionSandboxSchema>;
