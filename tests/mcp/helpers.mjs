// Helpers for test_mcp.mjs: run the CLI, a fake live agent, and a raw JSON-RPC peer for input that the SDK
// client would never send.

import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const CLI = process.env.OOMSCOPE_CLI;
export const DATA = process.env.OOMSCOPE_TEST_DATA;
export const data = (name) => path.join(DATA, name);

// Runs `oomscope-cli ARGS` (asynchronously, so the fake agent in this process keeps serving).
export function cli(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

// The document `oomscope-cli ARGS` prints (its last line for JSON-lines commands when `lastLine`).
export async function cliJson(args, { lastLine = false, codes = [0] } = {}) {
  const r = await cli(args);
  if (!codes.includes(r.status)) throw new Error(`oomscope-cli ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  const text = lastLine ? r.stdout.trimEnd().split('\n').pop() : r.stdout;
  return JSON.parse(text);
}

// A live agent speaking protocol v1 on 127.0.0.1: a hello, then a sample every 50 ms.
export function fakeAgent() {
  return new Promise((resolve) => {
    const sockets = new Set();
    const server = net.createServer((c) => {
      sockets.add(c);
      c.on('error', () => {});
      const hello = { type: 'hello', protocol: 1, pid: 4242, host: 'fake', rank: 0, world_size: 1, backend: 'cpu', total_bytes: 17179869184 };
      c.write(JSON.stringify(hello) + '\n');
      let step = 0;
      const timer = setInterval(() => {
        step += 1;
        const t = `${Date.now()}000000`;
        c.write(`{"type":"sample","t":${t},"step":${step},"allocated":${1e9 + step * 1e6},"reserved":2000000000,"device_used":${3e9 + step}}\n`);
      }, 50);
      c.on('close', () => {
        clearInterval(timer);
        sockets.delete(c);
      });
    });
    server.listen(0, '127.0.0.1', () =>
      resolve({
        endpoint: `127.0.0.1:${server.address().port}`,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    );
  });
}

// `oomscope-cli mcp ARGS` driven line by line: send() writes a message (an object, or a raw string),
// next() resolves with the next message the server writes.
export class RawPeer {
  constructor(args = []) {
    this.child = spawn(CLI, ['mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.messages = [];
    this.waiters = [];
    this.stderr = '';
    let buffer = '';
    this.child.stdout.on('data', (b) => {
      buffer += b.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.messages.push(JSON.parse(line));
        this.wake();
      }
    });
    this.child.stderr.on('data', (b) => (this.stderr += b.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  wake() {
    while (this.waiters.length && this.messages.length) this.waiters.shift()(this.messages.shift());
  }

  send(message) {
    this.child.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
  }

  next(timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.wake();
    });
  }

  // The next message with this id (others, e.g. progress, are kept in `skipped`).
  async reply(id, timeoutMs = 10000) {
    this.skipped ??= [];
    for (;;) {
      const m = await this.next(timeoutMs);
      if (m.id === id && !m.method) return m;
      this.skipped.push(m);
    }
  }

  request(id, method, params) {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return this.reply(id);
  }

  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}
