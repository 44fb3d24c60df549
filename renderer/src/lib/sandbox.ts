import type { SandboxStatus } from '@shared/schemas/sandbox.js';

/** How the page words the sandbox's state: a lead ("On", "No sandbox here") and the rest of the sentence. */
export interface SandboxStatusText {
  /** The model's commands run in the sandbox now. */
  active: boolean;
  /** This machine has a sandbox. */
  available: boolean;
  lead: string;
  detail: string;
}

/**
 * The machine's sandbox and the setting, in words. It claims protection only where both hold:
 * the machine has a sandbox and the setting is on; otherwise it says the gate alone decides.
 */
export function sandboxStatusText(status: SandboxStatus | null, enabled: boolean): SandboxStatusText {
  if (!status)
    return {
      active: false,
      available: false,
      lead: 'Unknown.',
      detail: 'Drover could not tell whether this machine has a sandbox; the permission gate decides what runs.',
    };
  if (!status.available)
    return {
      active: false,
      available: false,
      lead: 'No sandbox on this machine:',
      detail: `${status.detail}. Commands run without one, and the permission gate alone decides what runs.`,
    };
  if (!enabled)
    return {
      active: false,
      available: true,
      lead: 'Off.',
      detail: `This machine has a sandbox (${status.detail}), but the model's commands run without it; the permission gate alone decides what runs.`,
    };
  return {
    active: true,
    available: true,
    lead: 'On:',
    detail: `the model's commands run in ${status.detail}. They write only in the session's working folder, the temp folder and the folders below, and reach only the hosts below.`,
  };
}
