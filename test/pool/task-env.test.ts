import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskEnvironment } from '../../electron/pool/task-env.js';

const secrets = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'];

describe('the environment a task gets', () => {
  it("keeps the person's variables and leaves out Drover's own, Electron's and the keys Drover reads", () => {
    const env = taskEnvironment(
      {
        HOME: '/home/p',
        PATH: '/usr/bin',
        DROVER_TOKEN: 't',
        DROVER_SQLITE_BINDING: '/b',
        DROVER_TASK_ID: 'bg_9',
        DROVER_TASK_abcdefabcdef: 'bg_2',
        ANTHROPIC_API_KEY: 'k1',
        OPENAI_API_KEY: 'k2',
        ELECTRON_RUN_AS_NODE: '1',
        CHROME_CRASHPAD_PIPE_NAME: 'x',
        XDG_CURRENT_DESKTOP: 'Unity',
        ORIGINAL_XDG_CURRENT_DESKTOP: 'GNOME',
      },
      { secrets, platform: 'linux' },
    );
    expect(env).toEqual({
      HOME: '/home/p',
      PATH: '/usr/bin',
      DROVER_TASK_abcdefabcdef: 'bg_2',
      XDG_CURRENT_DESKTOP: 'GNOME',
    });
  });

  it('removes XDG_CURRENT_DESKTOP that Electron made up when there was none', () => {
    expect(
      taskEnvironment(
        { XDG_CURRENT_DESKTOP: 'Unity', ORIGINAL_XDG_CURRENT_DESKTOP: 'undefined' },
        { platform: 'linux' },
      ),
    ).toEqual({});
  });

  it('passes a variable through when the person names it', () => {
    const env = taskEnvironment(
      { OPENAI_API_KEY: 'k2', ANTHROPIC_API_KEY: 'k1' },
      { secrets, pass: ['OPENAI_API_KEY'], platform: 'linux' },
    );
    expect(env).toEqual({ OPENAI_API_KEY: 'k2' });
  });

  it("leaves out npm's script variables and its PATH additions when Drover was started by its own npm script", () => {
    const checkout = '/work/drover';
    const path = [
      join(checkout, 'node_modules', '.bin'),
      join('/work', 'node_modules', '.bin'),
      '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      '/home/p/project/node_modules/.bin',
      '/usr/bin',
    ].join(delimiter);
    const env = taskEnvironment(
      {
        PATH: path,
        npm_package_name: 'drover',
        npm_package_json: join(checkout, 'package.json'),
        npm_config_prefix: '/x',
        INIT_CWD: checkout,
        HOME: '/home/p',
      },
      { platform: 'linux' },
    );
    expect(env).toEqual({ HOME: '/home/p', PATH: ['/home/p/project/node_modules/.bin', '/usr/bin'].join(delimiter) });
  });

  it("keeps npm variables that belong to the person's own npm run (Drover not started by npm)", () => {
    expect(taskEnvironment({ npm_config_cache: '/c' }, { platform: 'linux' })).toEqual({ npm_config_cache: '/c' });
  });

  it("leaves out an AppImage runtime's own variables", () => {
    expect(
      taskEnvironment(
        { APPIMAGE: '/a/Drover.AppImage', APPDIR: '/tmp/.mount', ARGV0: 'Drover', OWD: '/home/p', HOME: '/home/p' },
        { platform: 'linux' },
      ),
    ).toEqual({ HOME: '/home/p' });
  });

  it('compares names without regard to case on Windows', () => {
    const env = taskEnvironment(
      { Drover_Token: 't', openai_api_key: 'k', Path: 'C:\\Windows' },
      { secrets, platform: 'win32' },
    );
    expect(env).toEqual({ Path: 'C:\\Windows' });
    expect(taskEnvironment({ openai_api_key: 'k' }, { secrets, pass: ['OPENAI_API_KEY'], platform: 'win32' })).toEqual({
      openai_api_key: 'k',
    });
  });
});
