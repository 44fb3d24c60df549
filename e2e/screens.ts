import type { Page, TestInfo } from '@playwright/test';

/**
 * Screenshots of what the test shows, attached to its report and kept under test-results/:
 * light and dark at the current size, then light at 700 px wide (the narrow layout).
 * The viewport and colour scheme are put back afterwards.
 */
export async function shoot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1200, height: 760 };
  const take = async (suffix: string) => {
    const path = testInfo.outputPath(`${name}${suffix}.png`);
    await page.screenshot({ path });
    await testInfo.attach(`${name}${suffix}`, { path, contentType: 'image/png' });
  };
  await page.emulateMedia({ colorScheme: 'light' });
  await take('');
  await page.emulateMedia({ colorScheme: 'dark' });
  await take('-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 700, height: size.height });
  await take('-700');
  await page.setViewportSize(size);
}
