import type { PermissionAnswer, PermissionRequest } from '@shared/contract.js';

/** One answer the permission panel offers: its button's words and its chord's letter (lib/permission-keys.ts). */
export interface AnswerChoice {
  answer: PermissionAnswer;
  letter: string;
  label: string;
  hint: string;
  testId: string;
}

/** What a request is about, as the panel words it. */
export type RequestKind = 'network' | 'outside' | 'command';

export function requestKind(request: Pick<PermissionRequest, 'network' | 'sandbox'>): RequestKind {
  if (request.network) return 'network';
  return request.sandbox === 'outside' ? 'outside' : 'command';
}

/** "api.example.com:443", or the host alone when no port was given. */
export function networkTarget(network: { host: string; port: number }): string {
  return network.port ? `${network.host}:${network.port}` : network.host;
}

const REJECT: AnswerChoice = {
  answer: 'reject',
  letter: 'r',
  label: 'Reject',
  hint: 'Do not run it; the model is told',
  testId: 'permission-reject',
};

/**
 * The answers a request offers, in the order shown; the server takes exactly these. A connection
 * from the sandbox: once, its host for the session, or no. A command leaving the sandbox: once,
 * or no (a grant would let it leave again unasked). Other commands: as the gate offers (no
 * grants in plan mode; "Always allow <program>" only where an entry is offered).
 */
export function answerChoices(
  request: Pick<PermissionRequest, 'network' | 'sandbox' | 'planMode' | 'programGrant'>,
): AnswerChoice[] {
  const kind = requestKind(request);
  if (kind === 'network' && request.network) {
    const target = networkTarget(request.network);
    return [
      { answer: 'allow', letter: 'a', label: 'Allow once', hint: 'This connection only', testId: 'permission-allow' },
      {
        answer: 'allow_host',
        letter: 'h',
        label: 'Allow this host for the session',
        hint: `${target} stays reachable until Drover quits`,
        testId: 'permission-allow-host',
      },
      { ...REJECT, hint: 'The connection is refused; the command sees an error' },
    ];
  }
  if (kind === 'outside')
    return [
      {
        answer: 'allow',
        letter: 'a',
        label: 'Allow once outside the sandbox',
        hint: 'Run it this time with your own access',
        testId: 'permission-allow',
      },
      { ...REJECT, hint: 'Do not run it; the model is told' },
    ];
  return [
    { answer: 'allow', letter: 'a', label: 'Allow once', hint: 'Run it this time only', testId: 'permission-allow' },
    ...(request.planMode
      ? []
      : [
          {
            answer: 'allow_always' as const,
            letter: 's',
            label: 'Allow always',
            hint: 'This exact command, in this session',
            testId: 'permission-allow-always',
          },
        ]),
    ...(request.programGrant === null || request.planMode
      ? []
      : [
          {
            answer: 'allow_program' as const,
            letter: 'p',
            label: 'Always allow',
            hint: 'With any plain arguments (no pipes, redirects or risky flags), in this session',
            testId: 'permission-allow-program',
          },
        ]),
    REJECT,
  ];
}

/** Whether the request offers this answer (a chord for another one answers nothing). */
export function offers(
  request: Pick<PermissionRequest, 'network' | 'sandbox' | 'planMode' | 'programGrant'>,
  answer: PermissionAnswer,
): boolean {
  return answerChoices(request).some((choice) => choice.answer === answer);
}
