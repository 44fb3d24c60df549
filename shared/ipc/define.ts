import type { z } from 'zod';

/** One request of the contract: what it takes, what it answers. */
export interface RequestDef<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType> {
  readonly input: In;
  readonly output: Out;
  readonly summary: string;
}

/** One event of the contract: what it carries. */
export interface EventDef<Payload extends z.ZodType = z.ZodType> {
  readonly payload: Payload;
  readonly summary: string;
}

export interface Contract {
  readonly requests: Readonly<Record<string, RequestDef>>;
  readonly events: Readonly<Record<string, EventDef>>;
}

export function request<In extends z.ZodType, Out extends z.ZodType>(def: {
  input: In;
  output: Out;
  summary: string;
}): RequestDef<In, Out> {
  return def;
}

export function event<Payload extends z.ZodType>(def: { payload: Payload; summary: string }): EventDef<Payload> {
  return def;
}

/** Keeps the literal keys of a contract while checking its shape. */
export function defineContract<const C extends Contract>(contract: C): C {
  for (const name of Object.keys(contract.requests)) {
    if (name === 'on') throw new Error('A request may not be named "on": the client uses that name for events');
  }
  return contract;
}

export type RequestName<C extends Contract> = keyof C['requests'] & string;
export type EventName<C extends Contract> = keyof C['events'] & string;
/** What a caller may pass (defaults still optional). */
export type InputOf<C extends Contract, N extends RequestName<C>> = z.input<C['requests'][N]['input']>;
/** What a handler receives after validation. */
export type ParsedInputOf<C extends Contract, N extends RequestName<C>> = z.output<C['requests'][N]['input']>;
export type OutputOf<C extends Contract, N extends RequestName<C>> = z.output<C['requests'][N]['output']>;
export type PayloadOf<C extends Contract, E extends EventName<C>> = z.output<C['events'][E]['payload']>;
