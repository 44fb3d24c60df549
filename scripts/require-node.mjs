// `npm run dist` needs a newer Node than the rest: electron-builder and Electron's rebuild
// tooling require 22.12. Say so at once instead of failing deep inside the build.
const [wantMajor, wantMinor] = [22, 12];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  console.error(
    `Building the desktop installers needs Node ${wantMajor}.${wantMinor} or newer; this is Node ${process.versions.node}. ` +
      'The headless host and the tests run on Node 20.19 or newer.',
  );
  process.exit(1);
}
