// The running sandbox's control socket (`npm run sandbox -- restart r2`): a Unix socket in a folder named by the
// balancer's port, taking one command per connection and answering lines until it closes. Written here because it
// is one line each way between two processes of ours: HAProxy's runtime API works the same way, and no library
// does less.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** Where the sandbox listening on `port` keeps its control socket (one folder per balancer port, only its user's). */
export function controlSocket(port: number): string {
  return path.join(os.tmpdir(), `avt-sandbox-${port}`, "control.sock");
}

export type ControlHandler = (args: string[], say: (line: string) => void) => Promise<void>;

/** Serves `handlers` on `file`'s socket; a command's error is its last line, as `error: …`. */
export async function serveControl(file: string, handlers: Record<string, ControlHandler>): Promise<{ close(): void }> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.rmSync(file, { force: true }); // a socket left by a sandbox that was killed
  const server = net.createServer((c) => {
    let text = "";
    c.on("data", (d: Buffer) => {
      text += d;
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      const [name = "", ...args] = text.slice(0, nl).trim().split(/\s+/);
      const say = (line: string) => c.write(`${line}\n`);
      const handler = handlers[name];
      const run = handler ? handler(args, say) : Promise.reject(new Error(`unknown command "${name}"; known: ${Object.keys(handlers).join(", ")}`));
      run.then(
        () => c.end(),
        (e: Error) => c.end(`error: ${e.message}\n`),
      );
    });
    c.on("error", () => undefined);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(file, resolve));
  return {
    close() {
      server.close();
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}

/** Sends `command` to the sandbox at `file`, printing each answer line; resolves true unless it ended in an error. */
export function sendControl(file: string, command: string, print: (line: string) => void): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let text = "";
    const c = net.connect(file, () => c.write(`${command}\n`));
    c.on("data", (d: Buffer) => (text += d));
    c.on("end", () => {
      const lines = text.trimEnd().split("\n").filter(Boolean);
      lines.forEach(print);
      resolve(!lines.at(-1)?.startsWith("error: "));
    });
    c.on("error", (e: NodeJS.ErrnoException) =>
      reject(e.code === "ENOENT" || e.code === "ECONNREFUSED" ? new Error(`no sandbox is running with this port (no control socket at ${file}); pass its --port`) : e),
    );
  });
}
