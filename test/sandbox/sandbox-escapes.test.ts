/**
 * Ways out of the sandbox (issue 19, "Bad input and faults"): each is tried with a real command
 * through the pool, as the model's would run, and each must come to nothing. Where the attempt
 * works outside the sandbox, the same command is also run unsandboxed to show the test would see
 * an escape if the fence were not there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET, sandboxWorld, type SandboxWorld } from './sandbox-harness.js';

/** A word only settings.json holds: seeing it in a sandboxed command's output means the file was read. */
const SETTINGS_MARKER = 'DROVER-SETTINGS-MARKER-5c1e';

/** Single-quoted for the shell (the temp paths hold no quotes, but a test should not rely on that). */
function q(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A world whose data folder holds a settings.json with a marker in it, and the database. */
async function worldWithSettings(): Promise<SandboxWorld & { settingsFile: string; databaseFile: string }> {
  const world = await sandboxWorld();
  await world.call('updateSettings', { commandAllowlist: [`echo ${SETTINGS_MARKER}`] });
  const settingsFile = join(world.dataDir, 'settings.json');
  expect(readFileSync(settingsFile, 'utf8')).toContain(SETTINGS_MARKER);
  const databaseFile = world.services.databaseFile;
  expect(readFileSync(databaseFile).subarray(0, 15).toString()).toBe('SQLite format 3');
  return { ...world, settingsFile, databaseFile };
}

/** Every file under a folder, with its contents (for "nothing landed here"). */
function filesUnder(folder: string): { path: string; text: string }[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true)
    .map((path) => ({ path, text: readFileSync(path).toString('latin1') }));
}

/**
 * name_to_handle_at and open_by_handle_at without a compiler: python3 with ctypes, and perl's
 * syscall() (perl-base is on every Debian). Both print the same lines:
 *   handle TYPE:HEX | handle-refused ERRNO          for `handle PATH...`
 *   opened WHERE CONTENT | open-refused WHERE ERRNO  for `open MOUNT HANDLE...`
 * A directory opened by handle prints its entries.
 */
const PYTHON_PROBE = `
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [('handle_bytes', ctypes.c_uint), ('handle_type', ctypes.c_int), ('f_handle', ctypes.c_ubyte * 128)]
def err():
    code = ctypes.get_errno()
    return errno.errorcode.get(code, 'errno%d' % code)
mode, args = sys.argv[1], sys.argv[2:]
if mode == 'handle':
    for path in args:
        h = Handle(handle_bytes=128)
        mount = ctypes.c_int()
        if libc.name_to_handle_at(-100, os.fsencode(path), ctypes.byref(h), ctypes.byref(mount), 0) != 0:
            print('handle-refused', err())
            continue
        print('handle %d:%s' % (h.handle_type, bytes(h.f_handle[:h.handle_bytes]).hex()))
else:
    where, handles = args[0], args[1:]
    folder = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
    for text in handles:
        kind, hexa = text.split(':')
        raw = bytes.fromhex(hexa)
        h = Handle(handle_bytes=len(raw), handle_type=int(kind))
        ctypes.memmove(h.f_handle, raw, len(raw))
        fd = libc.open_by_handle_at(folder, ctypes.byref(h), os.O_RDONLY)
        if fd < 0:
            print('open-refused', where, err())
            continue
        if os.path.isdir('/proc/self/fd/%d' % fd):
            print('opened', where, ' '.join(sorted(os.listdir(fd))))
        else:
            print('opened', where, os.read(fd, 200).decode(errors='replace'))
`;

const PERL_PROBE = `
use strict; use warnings; use Fcntl; use Errno;
require 'syscall.ph';
sub err { my ($name) = grep { $!{$_} } keys %!; return $name // ('errno' . ($! + 0)); }
my ($mode, @args) = @ARGV;
if ($mode eq 'handle') {
  for my $path (@args) {
    my $buf = pack('Ii', 128, 0) . ("\\0" x 128);
    my $mount = pack('i', 0);
    if (syscall(&SYS_name_to_handle_at, -100, $path, $buf, $mount, 0) != 0) { print "handle-refused ", err(), "\\n"; next; }
    my ($bytes, $type) = unpack('Ii', $buf);
    print "handle $type:", unpack('H*', substr($buf, 8, $bytes)), "\\n";
  }
} else {
  my ($where, @handles) = @args;
  sysopen(my $dir, $where, O_RDONLY | O_DIRECTORY) or die "cannot open $where: $!";
  for my $handle (@handles) {
    my ($type, $hex) = split /:/, $handle;
    my $raw = pack('H*', $hex);
    my $buf = pack('Ii', length($raw), $type) . $raw;
    my $fd = syscall(&SYS_open_by_handle_at, fileno($dir), $buf, O_RDONLY);
    if ($fd < 0) { print "open-refused $where ", err(), "\\n"; next; }
    my $target = "/proc/self/fd/$fd";
    if (-d $target) { opendir(my $d, $target); print "opened $where ", join(' ', sort readdir($d)), "\\n"; }
    else { open(my $f, '<', $target); local $/; my $text = <$f> // ''; print "opened $where ", substr($text, 0, 200), "\\n"; }
  }
}
`;

/** The interpreters here that can make the two calls: the program's absolute path, and its script. */
function handleProbes(): { name: string; program: string; script: string; file: string }[] {
  const found: { name: string; program: string; script: string; file: string }[] = [];
  const locate = (program: string, args: string[]) => {
    try {
      return execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  // The interpreter itself, not a version manager's shim (which would look for its own files on each run).
  const python = locate('python3', ['-c', 'import ctypes, sys; print(sys.executable)']);
  if (python) found.push({ name: 'python3', program: python, script: PYTHON_PROBE, file: 'handle-probe.py' });
  const perl = locate('perl', ['-e', 'require "syscall.ph"; print $^X']);
  if (perl) found.push({ name: 'perl', program: perl, script: PERL_PROBE, file: 'handle-probe.pl' });
  return found;
}

describe('a sandboxed command cannot escape', () => {
  it('through a link into a denied folder: the symbolic link reads nothing, the hard link is not made', async () => {
    const world = await worldWithSettings();
    const attempt = await world.run(
      [
        'ln -s ~/.ssh link; echo "symlink=$?"',
        'cat link/id_rsa; echo "through-link=$?"',
        'ln -s ~/.ssh/id_rsa keylink; cat keylink; echo "through-keylink=$?"',
        'ln ~/.ssh/id_rsa hard; echo "hardlink=$?"; cat hard',
        `ln -s ${q(world.dataDir)} datalink; cat datalink/settings.json; ls -la datalink/`,
        `ln ${q(world.settingsFile)} hard-settings; echo "hard-settings=$?"`,
        'echo done',
      ].join('\n'),
    );
    expect(attempt.row.sandboxed).toBe(true);
    expect(attempt.output).toContain('done');
    // The link itself is made (the working folder is writable); what it points at is not there.
    expect(attempt.output).toContain('symlink=0');
    expect(attempt.output).toMatch(/through-link=[1-9]/);
    expect(attempt.output).toMatch(/through-keylink=[1-9]/);
    expect(attempt.output).toMatch(/hardlink=[1-9]/);
    expect(attempt.output).toMatch(/hard-settings=[1-9]/);
    expect(attempt.output).not.toContain(SECRET);
    expect(attempt.output).not.toContain(SETTINGS_MARKER);
    expect(attempt.output).not.toContain('drover.sqlite');
    expect(existsSync(join(world.work, 'hard'))).toBe(false);
    expect(existsSync(join(world.work, 'hard-settings'))).toBe(false);
    expect(readlinkSync(join(world.work, 'link'))).toBe(join(world.home, '.ssh'));

    // Not vacuous: the same link, followed outside the sandbox, does reach the key.
    const unsandboxed = await world.run('cat link/id_rsa', { sandboxed: false });
    expect(unsandboxed.output).toContain(SECRET);
  });

  it("into Drover's process through /proc: a pid namespace of its own, where Drover's environ, root and cwd are not", async () => {
    const world = await worldWithSettings();
    const pid = process.pid;
    const ownCommandLine = readFileSync('/proc/self/cmdline', 'utf8').replaceAll('\0', ' ').trim();
    const probe = [
      'echo "pidns=$(readlink /proc/self/ns/pid)"',
      `cat /proc/${pid}/environ | tr '\\0' '\\n' | grep -c '^PATH='; echo "environ=$?"`,
      `cat /proc/${pid}/root${world.settingsFile}; echo "root=$?"`,
      `ls /proc/${pid}/root${world.dataDir}; echo "root-ls=$?"`,
      `ls -la /proc/${pid}/cwd/; echo "cwd=$?"`,
    ].join('\n');
    // Inside, also every process the command can see, by its command line.
    const inside = await world.run(`${probe}\nfor p in /proc/[0-9]*; do tr '\\0' ' ' < "$p/cmdline"; echo; done`);
    expect(inside.row.sandboxed).toBe(true);
    const hostNamespace = readlinkSync('/proc/self/ns/pid');
    expect(inside.output).toMatch(/pidns=pid:\[\d+\]/);
    expect(inside.output).not.toContain(`pidns=${hostNamespace}`);
    expect(inside.output).toMatch(/environ=[1-9]/);
    expect(inside.output).toMatch(/root=[1-9]/);
    expect(inside.output).toMatch(/root-ls=[1-9]/);
    expect(inside.output).toMatch(/cwd=[1-9]/);
    expect(inside.output).not.toContain(SETTINGS_MARKER);
    expect(inside.output).not.toContain(ownCommandLine);

    // Not vacuous: outside the sandbox the same reads reach Drover's environment and its files.
    const outside = await world.run(probe, { sandboxed: false });
    expect(outside.output).toContain(`pidns=${hostNamespace}`);
    expect(outside.output).toMatch(/^1\nenviron=0$/m);
    expect(outside.output).toContain(SETTINGS_MARKER);
  });

  it('through /dev/fd or /proc/self/fd: it holds no descriptor to a file of the host, and writes through them land nowhere', async () => {
    const world = await worldWithSettings();
    const before = readFileSync(world.settingsFile, 'utf8');
    const listing = await world.run("find /proc/self/fd/ -mindepth 1 -printf '%f %l\\n'; echo listed");
    expect(listing.output).toContain('listed');
    const descriptors = listing.output
      .split('\n')
      .map((line) => /^(\d+) (.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => ({ fd: Number(match[1]), target: match[2]! }));
    // stdin, stdout and stderr at least; every one is a pipe, a socket or a device, none a file of Drover's.
    expect(descriptors.map((d) => d.fd)).toEqual(expect.arrayContaining([0, 1, 2]));
    for (const { fd, target } of descriptors) {
      const what = `fd ${fd} -> ${target}`;
      expect(target.startsWith(world.dataDir), what).toBe(false);
      expect(target, what).not.toBe(listing.row.logPath);
      expect(target, what).not.toBe(world.databaseFile);
      expect(target.startsWith(world.home), what).toBe(false);
      expect(target.startsWith(world.outside), what).toBe(false);
    }

    // The marker is computed by the shell, so only a write that went through carries it.
    const attempt = await world.run(
      [
        'for n in $(seq 3 20); do',
        '  echo "FDWRITE$((6*7))" 2>/dev/null > /dev/fd/$n',
        '  echo "FDWRITE$((6*7))" 2>/dev/null > /proc/self/fd/$n',
        'done 2>/dev/null',
        `( exec 3<> ${q(join(world.outside, 'opened-rw'))} && echo "FDWRITE$((6*7))" >&3 ); echo "exec-outside=$?"`,
        `( exec 4<> ${q(world.settingsFile)} && echo "FDWRITE$((6*7))" >&4 ); echo "exec-settings=$?"`,
        'echo done',
      ].join('\n'),
    );
    expect(attempt.row.sandboxed).toBe(true);
    expect(attempt.output).toContain('done');
    expect(attempt.output).toMatch(/exec-outside=[1-9]/);
    expect(existsSync(join(world.outside, 'opened-rw'))).toBe(false);
    expect(readFileSync(world.settingsFile, 'utf8')).toBe(before);
    // The command's own log may hold it: bash keeps copies of stdout and stderr on descriptors from 10 while
    // it redirects a builtin, and a write there is the task's own output, not an escape.
    for (const folder of [world.dataDir, world.outside, world.home])
      for (const file of filesUnder(folder).filter((file) => file.path !== attempt.row.logPath))
        expect(file.text, file.path).not.toContain('FDWRITE42');

    // Not vacuous: outside the sandbox the same descriptor opens the file and writes it.
    await world.run(`( exec 3<> ${q(join(world.outside, 'unsandboxed-rw'))} && echo "FDWRITE$((6*7))" >&3 )`, {
      sandboxed: false,
    });
    expect(readFileSync(join(world.outside, 'unsandboxed-rw'), 'utf8')).toBe('FDWRITE42\n');
  });

  it('by file handle: open_by_handle_at is refused (EPERM), and a forged handle for the data folder opens nothing', async () => {
    const world = await worldWithSettings();
    const probes = handleProbes();
    // python3 (with ctypes) or perl is on every Debian machine; neither here is a failure, not a skip.
    expect(probes.length, 'python3 or perl to make the calls').toBeGreaterThan(0);
    writeFileSync(join(world.work, 'mine.txt'), 'MINE\n');
    for (const probe of probes) {
      const script = join(world.work, probe.file);
      writeFileSync(script, probe.script);
      const run = `${q(probe.program)} ${q(script)}`;
      // The handles as the host sees them: a file of the working folder, settings.json and the data folder itself.
      const host = await world.run(
        `${run} handle ${q(join(world.work, 'mine.txt'))} ${q(world.settingsFile)} ${q(world.dataDir)}`,
        { sandboxed: false },
      );
      const handles = [...host.output.matchAll(/^handle (\d+:[0-9a-f]+)$/gm)].map((match) => match[1]!);
      expect(handles, `${probe.name}: ${host.output}`).toHaveLength(3);
      const [mine, settings, folder] = handles as [string, string, string];

      const inside = await world.run(
        [
          `${run} handle mine.txt`,
          `${run} open ${q(world.work)} ${mine}`,
          ...['/', dirname(world.dataDir), world.work, world.dataDir, world.home].map(
            (mount) => `${run} open ${q(mount)} ${settings} ${folder}`,
          ),
          'echo done',
        ].join('\n'),
      );
      const what = `${probe.name}: ${inside.output}`;
      expect(inside.row.sandboxed, what).toBe(true);
      expect(inside.output, what).toContain('done');
      // Making a handle needs no privilege; opening one needs CAP_DAC_READ_SEARCH in the host's namespace.
      expect(inside.output, what).toMatch(/^handle \d+:[0-9a-f]+$/m);
      expect(inside.output, what).toContain(`open-refused ${world.work} EPERM`);
      expect(inside.output.match(/^open-refused /gm), what).toHaveLength(11);
      expect(inside.output, what).not.toMatch(/^opened /m);
      expect(inside.output, what).not.toContain(SETTINGS_MARKER);
      expect(inside.output, what).not.toContain('drover.sqlite');

      // Not vacuous: outside the sandbox the forged handles open settings.json and list the data folder.
      const outside = await world.run(`${run} open / ${settings} ${folder}`, { sandboxed: false });
      expect(outside.output, probe.name).toContain(SETTINGS_MARKER);
      expect(outside.output, probe.name).toMatch(/^opened \/ .*drover\.sqlite/m);
    }
  });

  it("holds its capabilities in a user namespace of its own: they cannot remount or unmount the sandbox's walls", async () => {
    const world = await worldWithSettings();
    const attempt = await world.run(
      [
        'echo "userns=$(readlink /proc/self/ns/user)"',
        'echo "uidmap=$(cat /proc/self/uid_map | tr -s " " | paste -sd ";")"',
        'grep CapEff /proc/self/status',
        'mount -o remount,rw,bind / 2>/dev/null; echo "remount=$?"',
        `umount ${q(world.dataDir)} 2>/dev/null; echo "umount-data=$?"`,
        'umount ~/.ssh 2>/dev/null; echo "umount-ssh=$?"',
        'umount /proc 2>/dev/null; echo "umount-proc=$?"',
        `cat ~/.ssh/id_rsa ${q(world.settingsFile)} /proc/${process.pid}/environ`,
        `echo escaped > ${q(join(world.outside, 'after-remount'))}; echo "write-outside=$?"`,
        'echo done',
      ].join('\n'),
    );
    expect(attempt.row.sandboxed).toBe(true);
    expect(attempt.output).toContain('done');
    // Whatever CapEff says inside, it is counted in another user namespace than the host's.
    const hostNamespace = readlinkSync('/proc/self/ns/user');
    expect(attempt.output).toMatch(/userns=user:\[\d+\]/);
    expect(attempt.output).not.toContain(`userns=${hostNamespace}`);
    const hostMap = readFileSync('/proc/self/uid_map', 'utf8').trim().replace(/\s+/g, ' ');
    const insideMap = /uidmap=(.*)/.exec(attempt.output)?.[1]?.trim();
    expect(insideMap).toBeDefined();
    expect(insideMap).not.toBe(hostMap);
    expect(attempt.output).toMatch(/CapEff:\s+[0-9a-f]+/);
    for (const step of ['remount', 'umount-data', 'umount-ssh', 'umount-proc', 'write-outside'])
      expect(attempt.output).toMatch(new RegExp(`${step}=[1-9]`));
    expect(attempt.output).not.toContain(SECRET);
    expect(attempt.output).not.toContain(SETTINGS_MARKER);
    expect(existsSync(join(world.outside, 'after-remount'))).toBe(false);
  });

  it('to the data folder by another path: its parent, its inode number, /proc/self/root', async () => {
    const world = await worldWithSettings();
    const parent = dirname(world.dataDir);
    const inode = statSync(world.settingsFile).ino;
    const probe = [
      `ls -la ${q(parent)} | grep -F ${q(basename(world.dataDir))}`,
      `ls -laR ${q(world.dataDir)}`,
      `find ${q(parent)} -xdev -inum ${inode} 2>/dev/null | sed 's/^/found: /'`,
      `find ${q(parent)} -xdev -samefile ${q(world.settingsFile)} 2>/dev/null | sed 's/^/same: /'`,
      `cat /proc/self/root${world.settingsFile}`,
      `head -c 16 /proc/self/root${world.databaseFile}; echo`,
      `head -c 16 ${q(world.databaseFile)}; echo`,
      `cat /proc/1/root${world.settingsFile}`,
      'echo done',
    ].join('\n');
    const inside = await world.run(probe);
    expect(inside.row.sandboxed).toBe(true);
    expect(inside.output).toContain('done');
    // The folder's name shows in its parent; nothing in it does.
    expect(inside.output).toContain(basename(world.dataDir));
    expect(inside.output).not.toMatch(/^[-dl][-rwxst]{9}.* (settings\.json|drover\.sqlite)$/m);
    expect(inside.output).not.toMatch(/^(found|same): /m);
    expect(inside.output).not.toContain(SETTINGS_MARKER);
    expect(inside.output).not.toContain('SQLite format 3');

    // Not vacuous: outside the sandbox each of these paths reaches the files.
    const outside = await world.run(probe, { sandboxed: false });
    expect(outside.output).toContain(`found: ${world.settingsFile}`);
    expect(outside.output).toMatch(/^[-dl][-rwxst]{9}.* settings\.json$/m);
    expect(outside.output).toContain(SETTINGS_MARKER);
    expect(outside.output).toContain('SQLite format 3');
  });
});
