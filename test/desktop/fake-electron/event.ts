import type * as E from 'electron';

/** An Electron event object: preventable, with the parameters Electron adds to it. */
export function fakeEvent<Params extends object = Record<never, never>>(params?: Params): E.Event<Params> {
  let prevented = false;
  return Object.assign(
    {
      preventDefault: () => {
        prevented = true;
      },
      get defaultPrevented() {
        return prevented;
      },
    },
    params ?? ({} as Params),
  );
}
