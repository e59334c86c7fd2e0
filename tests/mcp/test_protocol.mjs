// `oomscope-cli mcp` fed raw lines that no SDK client would send: malformed JSON-RPC, batches, a huge line,
// deep nesting, calls before initialize, bad tools/call params, a cancelled call (it must stop and not
// answer), a call while the only slot is busy, a reused id; the server must answer as JSON-RPC and MCP
// prescribe and keep serving. Run by run_node_test.py (ctest -L mcp).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RawPeer, data, fakeAgent } from './helpers.mjs';

let peer;
let agent;

before(async () => {
  agent = await fakeAgent();
  peer = new RawPeer(['--max-calls', '1']);
});

after(() => agent?.close());

const code = (m) => m.error?.code;

test('malformed messages get JSON-RPC errors with a null id', async () => {
  peer.send('this is not json');
  let m = await peer.next();
  assert.equal(code(m), -32700);
  assert.equal(m.id, null);
  for (const raw of ['[]', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '42', '"ping"', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
    '['.repeat(100000), 'x'.repeat(5 << 20)]) {
    peer.send(raw);
    m = await peer.next();
    assert.equal(code(m), -32600, raw.slice(0, 40));
    assert.equal(m.id, null);
  }
  peer.send('{"jsonrpc":"1.0","id":4,"method":"ping"}');
  m = await peer.next();
  assert.equal(code(m), -32600);
  assert.equal(m.id, 4);
});

test('before initialize only ping is served; initialize negotiates the version once', async () => {
  assert.deepEqual((await peer.request(1, 'ping')).result, {});
  assert.equal(code(await peer.request(2, 'tools/list')), -32600);
  assert.equal(code(await peer.request(3, 'initialize', { capabilities: {} })), -32602);
  const init = await peer.request(4, 'initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
  assert.equal(init.result.protocolVersion, '2025-11-25');
  assert.equal(init.result.serverInfo.name, 'oomscope');
  assert.equal(code(await peer.request(5, 'initialize', { protocolVersion: '2025-06-18' })), -32600);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  peer.send({ jsonrpc: '2.0', method: 'notifications/no-such-thing', params: 7 });  // never answered
  assert.deepEqual((await peer.request(6, 'ping')).result, {});
});

test('unknown methods, tools and bad tools/call params are protocol errors', async () => {
  assert.equal(code(await peer.request(10, 'no/such/method')), -32601);
  assert.equal(code(await peer.request(11, 'tools/call', { name: 5 })), -32602);
  assert.equal(code(await peer.request(12, 'tools/call', { name: 'nope' })), -32602);
  assert.equal(code(await peer.request(13, 'tools/call', { name: 'info', arguments: 'x' })), -32602);
  assert.equal(code(await peer.request(14, 'tools/list', { cursor: 'abc' })), -32602);
  peer.send('{"jsonrpc":"2.0","id":15,"method":"tools/call","params":[1]}');
  assert.equal(code(await peer.reply(15)), -32602);
  const bad = await peer.request(16, 'tools/call', { name: 'info', arguments: { path: ['x'] } });
  assert.equal(bad.result.isError, true);
  const list = await peer.request(17, 'tools/list');
  assert.equal(list.result.tools.length, 6);
});

test('a cancelled call stops: no answer, and its slot is free again', async () => {
  peer.send({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'live', arguments: { endpoints: [agent.endpoint], seconds: 30 } } });
  await new Promise((r) => setTimeout(r, 300));
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20, reason: 'test' } });
  await new Promise((r) => setTimeout(r, 500));
  // With --max-calls 1 this is answered "busy" unless the cancelled call has really stopped.
  const r = await peer.request(21, 'tools/call', { name: 'info', arguments: { path: data('jax0.8_rocm_mi300x_gemm.xplane.pb') } });
  assert.equal(r.result.isError, false, r.result.content[0].text);
  assert.ok(!(peer.skipped ?? []).some((m) => m.id === 20), 'the cancelled call was answered');
});

test('a call while the only slot is taken is answered "busy"; a reused id is refused', async () => {
  peer.send({ jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'live', arguments: { endpoints: [agent.endpoint], seconds: 1.5 } } });
  await new Promise((r) => setTimeout(r, 200));
  const busy = await peer.request(31, 'tools/call', { name: 'info', arguments: { path: data('jax0.8_rocm_mi300x_gemm.xplane.pb') } });
  assert.equal(busy.result.isError, true);
  assert.match(busy.result.content[0].text, /busy/);
  const again = await peer.request(30, 'tools/call', { name: 'info', arguments: { path: 'x' } });
  assert.equal(code(again), -32600);
  assert.deepEqual((await peer.request(32, 'ping')).result, {});
  const done = await peer.reply(30);
  assert.equal(done.result.isError, false);
  assert.equal(done.result.structuredContent.type, 'table');
});

test('end of input ends the server, also with a call running', async () => {
  peer.send({ jsonrpc: '2.0', id: 40, method: 'tools/call', params: { name: 'live', arguments: { endpoints: [agent.endpoint], seconds: 30 } } });
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  assert.equal(await peer.close(), 0);
  assert.ok(Date.now() - t0 < 5000);
});
