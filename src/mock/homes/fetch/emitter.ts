// The few EventEmitter methods the pipeline calls on a request and its response (on, once, off, emit), for the
// in-process request and response (in-process.ts), which must not need node:events: the core runs in a browser.
// Hand-written (twenty lines) rather than a package: EventTarget has no `once`-by-function removal the pipeline uses.
type Listener = (...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

export class Emitter {
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, fn: Listener): this {
    const list = this.listeners.get(event);
    if (list) list.push(fn);
    else this.listeners.set(event, [fn]);
    return this;
  }

  once(event: string, fn: Listener): this {
    const wrapper: Listener & { inner?: Listener } = (...args) => {
      this.off(event, wrapper);
      fn(...args);
    };
    wrapper.inner = fn;
    return this.on(event, wrapper);
  }

  off(event: string, fn: Listener): this {
    const list = this.listeners.get(event);
    const i = list?.findIndex((l) => l === fn || (l as { inner?: Listener }).inner === fn) ?? -1;
    if (i >= 0) list!.splice(i, 1);
    return this;
  }

  removeListener(event: string, fn: Listener): this {
    return this.off(event, fn);
  }

  emit(event: string, ...args: unknown[]): boolean {
    const list = this.listeners.get(event);
    if (!list?.length) return false;
    for (const fn of [...list]) fn(...args);
    return true;
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}
