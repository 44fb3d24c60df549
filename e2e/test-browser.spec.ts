import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_DISABLED_FEATURES, CHROMIUM_LAUNCH, PLAYWRIGHT_DISABLED_FEATURES } from '../playwright.config.js';

/**
 * The browser every spec and the bench run in (playwright.config.ts): Chromium's address-bar popup
 * pages are off, and Playwright's own disabled features still reach Chromium with them.
 */

test('a new context opens no address-bar popup pages of its own beside the page under test', async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto('about:blank');
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets')) as {
      targetInfos: { type: string; url: string }[];
    };
    await cdp.detach();
    expect(targetInfos.some((target) => target.url === 'about:blank')).toBe(true);
    expect(targetInfos.filter((target) => target.url.startsWith('chrome://omnibox-popup'))).toEqual([]);
  } finally {
    await context.close();
  }
});

test("Chromium gets one --disable-features switch, holding Playwright's list and ours", async () => {
  // Chromium keeps only the last of several; a second would drop whichever list came first.
  const server = await chromium.launchServer(CHROMIUM_LAUNCH);
  try {
    const switches = server.process().spawnargs.filter((arg) => arg.startsWith('--disable-features='));
    expect(switches).toHaveLength(1);
    const features = switches[0]!.slice('--disable-features='.length).split(',');
    const playwrights = PLAYWRIGHT_DISABLED_FEATURES.slice('--disable-features='.length).split(',');
    expect(features).toEqual(expect.arrayContaining([...playwrights, ...CHROMIUM_DISABLED_FEATURES]));
  } finally {
    await server.close();
  }
});

test("Playwright's own list is the one the config replaces (an upgrade that changes it fails here)", async () => {
  // Both named: inside a spec, Playwright fills what a launch leaves out from the config's launchOptions.
  const server = await chromium.launchServer({ ...CHROMIUM_LAUNCH, args: [], ignoreDefaultArgs: false });
  try {
    const switches = server.process().spawnargs.filter((arg) => arg.startsWith('--disable-features='));
    expect(switches).toEqual([PLAYWRIGHT_DISABLED_FEATURES]);
  } finally {
    await server.close();
  }
});
