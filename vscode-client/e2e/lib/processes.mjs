// Child processes of the end-to-end run: each in its own process group, so
// the run ends exactly what it started (and nothing else) however it stops.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import * as net from 'node:net';

const started = [];

export function start(name, command, args, options) {
  const log = createWriteStream(options.log, { flags: 'a' });
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  child.on('error', (error) => log.write(`\n[${name}] ${error}\n`));
  started.push({ name, child });
  return child;
}

export function stopAll() {
  for (const { child } of started.reverse()) {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}

export async function until(what, check, timeoutMs, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export function readPortFile(file) {
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || undefined : undefined;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
