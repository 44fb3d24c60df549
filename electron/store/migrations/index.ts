import type { Database } from 'better-sqlite3';
import { m0001Sessions } from './0001-sessions.js';
import { m0002Messages } from './0002-messages.js';
import { m0003Tasks } from './0003-tasks.js';
import { m0004AgentMessages } from './0004-agent-messages.js';
import { m0005Instance } from './0005-instance.js';
import { m0006Heartbeat } from './0006-heartbeat.js';
import { m0007ToolHistory } from './0007-tool-history.js';
import { m0008Monitors } from './0008-monitors.js';
import { m0009Checklist } from './0009-checklist.js';
import { m0010WorkLinks } from './0010-work-links.js';
import { m0011SessionMode } from './0011-session-mode.js';
import { m0012ScheduledMessages } from './0012-scheduled-messages.js';
import { m0013UnattendedBudget } from './0013-unattended-budget.js';
import { m0014AgentTasks } from './0014-agent-tasks.js';
import { m0015TaskTty } from './0015-task-tty.js';
import { m0016TaskSandbox } from './0016-task-sandbox.js';

export interface Migration {
  /** Becomes `PRAGMA user_version` once applied; strictly increasing from 1. */
  readonly version: number;
  readonly name: string;
  up(db: Database): void;
}

export const migrations: readonly Migration[] = [
  m0001Sessions,
  m0002Messages,
  m0003Tasks,
  m0004AgentMessages,
  m0005Instance,
  m0006Heartbeat,
  m0007ToolHistory,
  m0008Monitors,
  m0009Checklist,
  m0010WorkLinks,
  m0011SessionMode,
  m0012ScheduledMessages,
  m0013UnattendedBudget,
  m0014AgentTasks,
  m0015TaskTty,
  m0016TaskSandbox,
];
