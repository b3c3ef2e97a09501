/**
 * A webhook receiver in its own process: answers 200 at once and records when each delivery arrived
 * (wall clock, sub-millisecond) with its event id, type and object id. IPC: { id, cmd } → { id, result }.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Arrival = { event_id: string; type: string; object_id: string | null; at: number };
let arrivals: Arrival[] = [];
let count = 0;
const now = () => performance.timeOrigin + performance.now();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    count++;
    if (process.env.RECEIVER_KEEP === '1') {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        arrivals.push({ event_id: body.id, type: body.type, object_id: body.data?.object?.id ?? null, at });
      } catch {
        /* not ours */
      }
    }
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.send!({ ready: true, port: (server.address() as AddressInfo).port }));

// The bench went away (Ctrl-C, a crash): nobody will ever send 'stop'.
process.on('disconnect', () => process.exit(0));

process.on('message', (msg: { id: number; cmd: string }) => {
  if (msg.cmd === 'count') return process.send!({ id: msg.id, result: count });
  if (msg.cmd === 'cpu') {
    const u = process.cpuUsage();
    return process.send!({ id: msg.id, result: u.user + u.system });
  }
  if (msg.cmd === 'arrivals') return process.send!({ id: msg.id, result: arrivals });
  if (msg.cmd === 'reset') {
    arrivals = [];
    count = 0;
    return process.send!({ id: msg.id, result: true });
  }
  if (msg.cmd === 'stop') {
    process.send!({ id: msg.id, result: true });
    server.close();
    setImmediate(() => process.exit(0));
  }
});
