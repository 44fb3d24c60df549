import type { TaskStatus } from '@shared/schemas/task.js';
import type { DroverApi } from '../api.js';
import { budgetNotice } from '@shared/domain/budget-notice.js';
import { taskNotice, type TaskNotice } from '../notify.js';

/** What the notifier needs of the browser. */
export interface NotifyHost {
  /** The window is hidden or lacks focus. */
  inBackground(): boolean;
  /** Shows the notice; `onClick` runs when it is clicked. */
  show(notice: TaskNotice, onClick: () => void): void;
}

/**
 * Browser notifications for the headless host (Electron's main process notifies itself):
 * a task of any session that ends, or a session's unattended budget at 80 % or spent, while the
 * window is in the background.
 */
export class TaskNotifier {
  readonly #api: DroverApi;
  readonly #host: NotifyHost;
  readonly #enabled: () => boolean;
  readonly #title: (sessionId: string) => string | null;
  readonly #open: (sessionId: string, taskId: string) => void;
  readonly #openSession: (sessionId: string) => void;
  readonly #seen = new Map<string, TaskStatus>();

  constructor(
    api: DroverApi,
    host: NotifyHost,
    options: {
      enabled: () => boolean;
      sessionTitle: (sessionId: string) => string | null;
      open: (sessionId: string, taskId: string) => void;
      openSession: (sessionId: string) => void;
    },
  ) {
    this.#api = api;
    this.#host = host;
    this.#enabled = options.enabled;
    this.#title = options.sessionTitle;
    this.#open = options.open;
    this.#openSession = options.openSession;
  }

  start(): () => void {
    const stopTasks = this.#api.on('taskUpdated', ({ task }) => {
      const key = `${task.sessionId}/${task.id}`;
      const before = this.#seen.get(key);
      this.#seen.set(key, task.status);
      if (!this.#enabled() || !this.#host.inBackground()) return;
      const notice = taskNotice(before, task, this.#title(task.sessionId));
      if (notice) this.#host.show(notice, () => this.#open(task.sessionId, task.id));
    });
    const stopBudget = this.#api.on('budgetChanged', ({ budget, told }) => {
      if (!told || !this.#enabled() || !this.#host.inBackground()) return;
      const notice = budgetNotice(budget, told, this.#title(budget.sessionId));
      this.#host.show(notice, () => this.#openSession(budget.sessionId));
    });
    return () => {
      stopTasks();
      stopBudget();
    };
  }
}

/** The browser's Notification API as a NotifyHost. */
export function browserNotifyHost(win: Window): NotifyHost {
  return {
    inBackground: () => win.document.hidden || !win.document.hasFocus(),
    show(notice, onClick) {
      if (!('Notification' in win) || Notification.permission !== 'granted') return;
      const note = new Notification(notice.title, { body: notice.body });
      note.onclick = () => {
        win.focus();
        onClick();
        note.close();
      };
    },
  };
}
