import { describe, expect, it, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../electron/host/static-files.js';
import { electronModule, updaterModule } from './fake-electron/index.js';
import { currentFake, RENDERER_HTML, startDesktop } from './desktop-harness.js';

vi.mock('electron', () => electronModule(currentFake));
vi.mock('electron-updater', () => updaterModule(currentFake));

describe('the desktop window under the fake Electron', () => {
  it('is locked down (isolated, sandboxed, no Node, no webviews) and loads drover://app/index.html', async () => {
    const { window, fake } = await startDesktop();
    expect(fake.windows.all).toHaveLength(1);
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(window.options.webPreferences?.preload).toMatch(/out[/\\]preload[/\\]preload\.cjs$/);
    // Shown only once painted, so it never flashes white.
    expect(window.options.show).toBe(false);
    expect(window.webContents.getURL()).toBe('drover://app/index.html');
    expect(fake.protocol.privileged).toEqual([
      { scheme: 'drover', privileges: expect.objectContaining({ standard: true, secure: true, codeCache: true }) },
    ]);
  });

  it('serves the renderer over drover:// with the CSP, and refuses traversal and foreign hosts', async () => {
    const { fake } = await startDesktop();
    const page = await fake.protocol.request('drover://app/index.html');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(RENDERER_HTML);
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    // The root is the page.
    expect(await (await fake.protocol.request('drover://app/')).text()).toBe(RENDERER_HTML);
    const script = await fake.protocol.request('drover://app/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    // The folder above the renderer holds build/icon.png: none of these may reach it.
    for (const url of [
      'drover://app/%2e%2e/%2e%2e/build/icon.png',
      'drover://app/..%2f..%2fbuild%2ficon.png',
      'drover://app/%2E%2E%2F%2E%2E%2Fbuild%2Ficon.png',
      'drover://app/..%5c..%5cbuild%5cicon.png',
      'drover://app/assets%5c..%5c..%5c..%5cbuild%5cicon.png',
      'drover://app/index.html%00.png',
      'drover://app/%E0%A4%A',
      'drover://app/missing.js',
      // A folder: Chromium's file loader would answer with a listing of it.
      'drover://app/assets',
      'drover://app/assets/',
      // Names Windows reads as others: a trailing dot or space, only dots, a stream or device after ':'.
      'drover://app/index.html.',
      'drover://app/index.html%20',
      'drover://app/assets/app.js%20%20',
      'drover://app/.../index.html',
      'drover://app/assets/%20/app.js',
      'drover://app/index.html::$DATA',
      'drover://app/assets:stream/app.js',
      'drover://elsewhere/index.html',
      'drover://app.evil/index.html',
    ]) {
      const response = await fake.protocol.request(url);
      expect({ url, status: response.status }).toEqual({ url, status: 404 });
    }
  });

  it('denies navigation and redirects away from the app, popups, webviews and permission requests', async () => {
    const { window, fake } = await startDesktop();
    const contents = window.webContents;
    expect(contents.navigate('https://example.com/')).toBe(false);
    expect(contents.navigate('file:///etc/passwd')).toBe(false);
    expect(contents.redirect('https://example.com/login')).toBe(false);
    expect(contents.getURL()).toBe('drover://app/index.html');
    // Within the app, a navigation goes ahead (the control that it is the rule that refuses).
    expect(contents.navigate('drover://app/index.html#settings')).toBe(true);

    expect(contents.openWindow('https://example.com/docs')).toBe('deny');
    expect(contents.openWindow('mailto:someone@example.com?subject=Hi&attach=/etc/passwd')).toBe('deny');
    expect(contents.openWindow('file:///etc/passwd')).toBe('deny');
    expect(contents.openWindow('javascript:alert(1)')).toBe('deny');
    expect(contents.openWindow('drover://app/index.html')).toBe('deny');
    // Web and mail links go to the person's browser and mail program (mail without attach=); nothing else does.
    expect(fake.shell.opened).toEqual(['https://example.com/docs', 'mailto:someone@example.com?subject=Hi']);

    expect(contents.attachWebview('https://example.com/')).toBe(false);
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal'] as const)
      expect(await contents.requestPermission(permission)).toBe(false);
  });

  it('a second instance raises the window, restored when minimized', async () => {
    const { window, fake } = await startDesktop();
    window.minimize();
    expect(window.isVisible()).toBe(false);
    fake.app.emitSecondInstance();
    expect(window.isMinimized()).toBe(false);
    expect(window.isVisible()).toBe(true);
    expect(window.isFocused()).toBe(true);
    window.hide();
    fake.app.emitSecondInstance();
    expect(window.isVisible() && window.isFocused()).toBe(true);
    expect(fake.windows.all).toHaveLength(1);
  });

  it('an instance that cannot take the single-instance lock quits before it opens anything', async () => {
    const second = await startDesktop({ lockHeldElsewhere: true, expectWindow: false });
    expect(await second.exited()).toBe(0);
    expect(second.fake.app.quitCalls).toBe(1);
    expect(second.fake.windows.all).toHaveLength(0);
    expect(second.fake.ipcMain.channels()).toEqual([]);
    expect(second.fake.trays).toHaveLength(0);
  });
});
