import { defineConfig, type LaunchOptions } from '@playwright/test';

/** Debian's Chromium, never a downloaded browser; flags keep it quiet on a closed network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The `--disable-features` list Playwright passes to Chromium (1.65). Chromium keeps only the last
 * `--disable-features` it is given, so adding to it means replacing this one, not adding a second
 * (e2e/test-browser.spec.ts checks the two still agree after an upgrade).
 */
export const PLAYWRIGHT_DISABLED_FEATURES =
  '--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,TcpPortRandomizationWin,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch,msForceBrowserSignIn,msEdgeUpdateLaunchServicesPreferredVersion';

/**
 * Features of Chromium's own window that the tests and the bench turn off. Chromium 156 builds
 * its address bar's popup as web pages (two of them, about 150 scripts) in a renderer of its own
 * for every new browser context: on a 2-core machine that work took the cores from the page under
 * test, and a new profile's first open of a big session measured about 300 ms slower with it
 * (Puppeteer turns the same two off). Drover's desktop window has no address bar.
 */
export const CHROMIUM_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

/** How every browser of the tests and the bench is launched: Debian's Chromium, CHROMIUM_ARGS, the features above off. */
export const CHROMIUM_LAUNCH: LaunchOptions = {
  executablePath: process.env.DROVER_CHROMIUM ?? '/usr/bin/chromium',
  args: [...CHROMIUM_ARGS, [PLAYWRIGHT_DISABLED_FEATURES, ...CHROMIUM_DISABLED_FEATURES].join(',')],
  ignoreDefaultArgs: [PLAYWRIGHT_DISABLED_FEATURES],
};

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: 'test-results',
  reporter: [['list'], ['json', { outputFile: '.reports/playwright.json' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1200, height: 760 },
    launchOptions: CHROMIUM_LAUNCH,
    trace: 'retain-on-failure',
  },
});
