// A part of the client that only some clients or calls need, loaded with import() the first time one does and kept
// (decision C9): a bundler with code splitting makes it a chunk of its own, which an app that never needs it never
// loads (npm run bench, "Client size"). For the parts a call can do without when they cannot be loaded (a browser
// gone offline): the body timeout of a body read as a stream, the parser `onRateLimit` is told with. The write path
// cannot be done without, and fails its call instead (client.ts).

export interface OnDemand<T> {
  /** What was loaded, once it is: read this first, so a loaded part costs no await. */
  value: T | undefined;
  /** Loads it (one import at a time, shared by the calls that wait for it); undefined when it cannot be loaded, tried again next time. */
  load(): Promise<T | undefined>;
}

export function onDemand<T>(importer: () => Promise<T>): OnDemand<T> {
  let pending: Promise<T | undefined> | undefined;
  const part: OnDemand<T> = {
    value: undefined,
    load: () =>
      (pending ??= importer().then(
        (v) => (part.value = v),
        () => (pending = undefined),
      )),
  };
  return part;
}
