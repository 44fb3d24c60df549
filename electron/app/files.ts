import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { app, dialog, shell, type BrowserWindow } from 'electron';

/**
 * The desktop app's file actions for task logs: show a log in the file manager, and save a copy
 * where the person picks (the save dialog starts in Downloads, named after the task). Both act on
 * a path the pool gave, never on one from the page.
 */
export function desktopFiles(owner: () => BrowserWindow | undefined): {
  revealFile: (path: string) => void;
  saveFileCopy: (source: string, suggestedName: string) => Promise<string | null>;
} {
  return {
    revealFile: (path) => shell.showItemInFolder(path),
    saveFileCopy: async (source, suggestedName) => {
      const options = { title: 'Save the log', defaultPath: join(app.getPath('downloads'), suggestedName) };
      const window = owner();
      const answer = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
      if (answer.canceled || !answer.filePath) return null;
      await copyFile(source, answer.filePath);
      return answer.filePath;
    },
  };
}
