/** What the main thread and a session's sandbox worker say to each other (sandbox-worker.ts). */
export type WorkerRequest =
  | { t: 'init'; config: unknown; cwd: string; tmpdir: string }
  | { t: 'update'; config: unknown }
  | { t: 'wrap'; id: number; taskId: string; command: string; commandText: string; shell: string; cwd: string }
  | { t: 'answer'; id: number; allowed: boolean }
  | { t: 'reset' };

export type WorkerReply =
  | { t: 'ready' }
  | { t: 'failed'; message: string }
  | { t: 'wrapped'; id: number; argv: string[]; env: Record<string, string> }
  | { t: 'error'; id: number; message: string }
  | { t: 'ask'; id: number; host: string; port: number }
  | { t: 'violation'; taskId: string | null; line: string }
  | { t: 'reset-done' };
