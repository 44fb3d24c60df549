import { join } from 'node:path';
import { app, Menu, Notification, Tray, nativeImage, type BrowserWindow } from 'electron';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { BudgetState } from '../../shared/schemas/budget.js';
import { budgetNotice, type BudgetTold } from '../../shared/domain/budget-notice.js';
import type { Services } from '../core/services.js';
import { TaskNotices } from '../notify/task-notices.js';

/**
 * Draws what TaskNotices decides: the tray's running count and menu, and a system
 * notification when a task ends while the window is away. Clicking either opens the task. A
 * session's unattended budget at 80 % or spent is notified the same way, and opens the session.
 */
export function startTaskTray(options: {
  services: Services;
  iconPath: string;
  window: () => BrowserWindow | undefined;
  /** Shows the main window, opening it again when it was closed. */
  showWindow: () => void;
  notificationsEnabled: () => boolean;
}): { stop: () => void; balloon: (title: string, body: string) => void } {
  const { services } = options;
  const notices = new TaskNotices();
  const image = nativeImage.createFromPath(options.iconPath).resize({ width: 18, height: 18 });
  const tray = new Tray(image);

  const raise = () => options.showWindow();
  const open = (sessionId: string, taskId: string) => {
    raise();
    services.bus.emit('openTask', { sessionId, taskId });
  };
  const windowFocused = () => {
    const window = options.window();
    return Boolean(window && !window.isDestroyed() && window.isFocused());
  };
  const sessionTitle = (sessionId: string) => {
    try {
      return services.sessions.get(sessionId).title;
    } catch {
      return null;
    }
  };
  const notifyBudget = (budget: BudgetState, told: BudgetTold) => {
    if (!options.notificationsEnabled() || !Notification.isSupported() || windowFocused()) return;
    const notice = budgetNotice(budget, told, sessionTitle(budget.sessionId));
    const shown = new Notification({ title: notice.title, body: notice.body, icon: options.iconPath });
    shown.on('click', () => {
      raise();
      services.bus.emit('openSession', { sessionId: budget.sessionId });
    });
    shown.show();
  };

  const redraw = () => {
    const state = notices.tray();
    tray.setToolTip(state.tooltip);
    if (process.platform === 'darwin') tray.setTitle(state.count > 0 ? String(state.count) : '');
    const items = state.items.map((item) => ({ label: item.label, click: () => open(item.sessionId, item.taskId) }));
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: state.count === 0 ? 'No tasks running' : `${state.count} running`, enabled: false },
        ...(items.length ? [{ type: 'separator' as const }, ...items] : []),
        { type: 'separator' },
        { label: 'Show Drover', click: raise },
        // Quits through before-quit, which asks first while work is live (close-to-tray.ts).
        { label: 'Quit Drover', click: () => app.quit() },
      ]),
    );
  };

  const unsubscribe = services.bus.subscribe((name, payload) => {
    if (name === 'budgetChanged') {
      const { budget, told } = payload as { budget: BudgetState; told: BudgetTold | null };
      if (told) notifyBudget(budget, told);
      return;
    }
    if (name !== 'taskUpdated') return;
    const task = (payload as { task: TaskRow }).task;
    const notice = notices.update(task, {
      enabled: options.notificationsEnabled() && Notification.isSupported(),
      windowFocused: windowFocused(),
      sessionTitle,
    });
    redraw();
    if (notice) {
      const shown = new Notification({ title: notice.title, body: notice.body, icon: options.iconPath });
      shown.on('click', () => open(notice.sessionId, notice.taskId));
      shown.show();
    }
  });
  redraw();
  return {
    stop: () => {
      unsubscribe();
      tray.destroy();
    },
    // Windows only: where system notifications are not supported, the tray icon can still say something.
    balloon: (title, content) => {
      if (!tray.isDestroyed()) tray.displayBalloon({ title, content, iconType: 'info' });
    },
  };
}

export function trayIconPath(appRoot: string): string {
  return join(appRoot, 'build', 'icon.png');
}
