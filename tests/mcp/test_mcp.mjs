// `oomscope-cli mcp` driven by the official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// package-lock.json): lists the tools, calls each on real files from tests/data and checks that its
// structured result (validated by the SDK against the tool's output schema) equals `oomscope-cli CMD --json`
// for the same arguments, and its text the command's text. Then hostile input, through the SDK and raw.
// Run by run_node_test.py (ctest -L mcp).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cli, cliJson, data, fakeAgent } from './helpers.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oomscope-mcp-'));
let client;
let agent;
let connectStart;
let firstReportMs;

before(async () => {
  agent = await fakeAgent();
  connectStart = performance.now();
  client = new Client({ name: 'oomscope-mcp-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: CLI, args: ['mcp'], stderr: 'pipe' }));
});

after(async () => {
  await client?.close();
  agent?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// Calls a tool and checks it against the CLI: structured result == `--json` document, text == text output.
async function same(name, args, jsonArgs, textArgs, { codes = [0], lastLine = false } = {}) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  assert.deepEqual(r.structuredContent, await cliJson(jsonArgs, { codes, lastLine }));
  if (textArgs) {
    const t = await cli(textArgs);
    assert.ok(codes.includes(t.status), t.stderr);
    assert.equal(r.content[0].type, 'text');
    assert.equal(r.content[0].text, t.stdout);
  }
  return r;
}

test('initialize negotiates the newest revision and lists every tool with both schemas', async () => {
  assert.equal(client.getServerVersion().name, 'oomscope');
  assert.ok(client.getServerCapabilities().tools);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['info', 'report', 'diff', 'whatif', 'simulate', 'live']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema.type, 'object', t.name);
    assert.ok(t.description.length > 100, t.name);
    assert.match(t.description, /read|measured|derived/, t.name);
  }
});

test('report of a real capture, first call after initialize', async () => {
  const gemm = data('jax0.8_rocm_mi300x_gemm.xplane.pb');
  await same('report', { path: gemm, top: 5, capacity: '300MiB' },
    ['report', gemm, '--top', '5', '--capacity', '300MiB', '--json', '-'],
    ['report', gemm, '--top', '5', '--capacity', '300MiB']);
  firstReportMs = performance.now() - connectStart;
  console.log(`# measured: client start + initialize + first report (gemm capture) ${firstReportMs.toFixed(1)} ms`);
});

test('report at a program position, as `report --at`, and its refusals in the CLI\'s words', async () => {
  const tpu = data('jax_tpu_v6e_inference.xplane.pb');
  const r = await same('report', { path: tpu, module: 'jit_f', at: 5 },
    ['report', tpu, '--module', 'jit_f', '--at', '5', '--json', '-'], ['report', tpu, '--module', 'jit_f', '--at', '5']);
  assert.match(r.content[0].text, /at position 5 /);
  // The text form of a position is read as the CLI reads it.
  await same('report', { path: tpu, module: 'jit_f', at: '3' }, ['report', tpu, '--module', 'jit_f', '--at', '3', '--json', '-'], null);
  const refused = [
    [{ at: 'x' }, ['--at', 'x']],
    [{ at: -1 }, ['--at', '-1']],
    [{ at: '2.5' }, ['--at', '2.5']],
    [{ at: 12 }, ['--at', '12']],
  ];
  for (const [args, flags] of refused) {
    const got = await client.callTool({ name: 'report', arguments: { path: tpu, module: 'jit_f', ...args } });
    const c = await cli(['report', tpu, '--module', 'jit_f', ...flags]);
    assert.equal(got.isError, true, JSON.stringify(args));
    assert.notEqual(c.status, 0, flags.join(' '));
    assert.ok(got.content[0].text.includes('--at'), got.content[0].text);
    assert.ok(c.stderr.includes(got.content[0].text), `${JSON.stringify(args)}: ${got.content[0].text} / ${c.stderr}`);
  }
});

test('info on every kind of file equals `info --json`', async () => {
  for (const f of ['jax_tpu_v6e_inference.xplane.pb', 'torch_snapshot_segments_only_diffusion_vit.pickle',
    'jax_device_memory_profile_cuda_microjax.prof', 'kineto_resnet50_v100_profile_memory_2021.pt.trace.json.gz',
    'torch_memory_timeline_raw_hta.raw.gz', 'tf2_gpu_v100x8_bert_multiworker.xplane.pb']) {
    await same('info', { path: data(f) }, ['info', data(f), '--json'], ['info', data(f)]);
  }
});

test('report: several hosts, module choice, other kinds, several snapshots, a partial failure', async () => {
  const a = data('jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb');
  const b = data('jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb');
  await same('report', { paths: [a, b], top: 3 }, ['report', a, b, '--top', '3', '--json', '-'], ['report', a, b, '--top', '3']);
  const gemm = data('jax0.8_rocm_mi300x_gemm.xplane.pb');
  const info = await cliJson(['info', gemm, '--json']);
  const id = info.modules[0].program_id;
  await same('report', { path: gemm, module: id }, ['report', gemm, '--module', String(id), '--json', '-'], null);
  const k = data('kineto_resnet50_v100_profile_memory_2021.pt.trace.json.gz');
  await same('report', { path: k }, ['report', k, '--json', '-'], ['report', k]);
  const s1 = data('torch_snapshot_cs336_fp32_ctx128.pickle');
  const s2 = data('torch_snapshot_cs336_bf16_ctx128.pickle');
  const r = await client.callTool({ name: 'report', arguments: { paths: [s1, s2], top: 4 } });
  assert.equal(r.isError, false);
  assert.deepEqual(r.structuredContent, { documents: await cliJson(['report', s1, s2, '--top', '4', '--json', '-']) });
  const missing = path.join(tmp, 'no_such.xplane.pb');
  const p = await same('report', { paths: [gemm, missing] }, ['report', gemm, missing, '--json', '-'],
    ['report', gemm, missing], { codes: [5] });
  assert.equal(p.structuredContent.failed.length, 1);
});

test('diff and simulate equal their commands', async () => {
  const s1 = data('torch_snapshot_cs336_fp32_ctx128.pickle');
  const s2 = data('torch_snapshot_cs336_bf16_ctx128.pickle');
  await same('diff', { base: s1, other: s2, top: 5 }, ['diff', s1, s2, '--top', '5', '--json', '-'], ['diff', s1, s2, '--top', '5']);
  const sizes = data('sim/scene_sizes.csv');
  const opts = ['--dist', sizes, '--batch', '6', '--budget', '3.5GiB', '--grad', 'accumulate', '--split', 'median'];
  await same('simulate', { dist: sizes, batch: 6, budget: '3.5GiB', grad: 'accumulate', split: 'median' },
    ['simulate', ...opts, '--json'], ['simulate', ...opts]);
  const crash = ['--preset', 'corrected', '--scenes', '16', '--seed', '3', '--bug-scene', '5'];
  const c = await client.callTool({ name: 'simulate', arguments: { preset: 'corrected', scenes: 16, seed: 3, bug_scene: 5 } });
  assert.equal(c.isError, false);
  const want = await cli(['simulate', ...crash, '--json']);
  assert.equal(want.status, 4);
  assert.deepEqual(c.structuredContent, JSON.parse(want.stdout));
  assert.ok(c.content[0].text.includes(want.stderr.replace('oomscope-cli simulate: ', '')));
});

test('diff and info of live recordings equal their commands; --categories on recordings is refused in the CLI\'s words', async () => {
  const a = data('live/two_runs_a_rank1_leaks.oomlive');
  const b = data('live/two_runs_b_fixed.oomlive');
  const d = await same('diff', { base: a, other: b }, ['diff', a, b, '--json', '-'], ['diff', a, b]);
  assert.equal(d.structuredContent.format, 'live-recording');
  assert.equal(d.structuredContent.ranks.length, 2);
  await same('info', { path: a }, ['info', a, '--json'], ['info', a]);
  const rules = path.join(tmp, 'recording.rules');
  fs.writeFileSync(rules, 'site train\\.py -> mine\n');
  const t = await client.callTool({ name: 'diff', arguments: { base: a, other: b, categories: rules } });
  const c = await cli(['diff', a, b, '--categories', rules]);
  assert.equal(t.isError, true);
  assert.equal(c.status, 2);
  assert.match(t.content[0].text, /no allocations to categorise/);
  assert.ok(c.stderr.includes(t.content[0].text), `${t.content[0].text} / ${c.stderr}`);
});

test('report and diff take a category rules file as --categories does; its errors are the CLI\'s, word for word', async () => {
  const s1 = data('torch_snapshot_cs336_fp32_ctx128.pickle');
  const s2 = data('torch_snapshot_cs336_bf16_ctx128.pickle');
  const rules = path.join(tmp, 'team.rules');
  fs.writeFileSync(rules, '# the SwiGLU lines of the cs336 model\nsite swiglu\\.py:3[234] in forward -> swiglu\n');
  const r = await same('report', { path: s2, top: 5, categories: rules },
    ['report', s2, '--top', '5', '--categories', rules, '--json', '-'], ['report', s2, '--top', '5', '--categories', rules]);
  const labels = JSON.stringify(r.structuredContent.categories_at_peak ?? r.structuredContent);
  assert.ok(labels.includes('"swiglu"'), labels.slice(0, 400));
  const d = await same('diff', { base: s1, other: s2, top: 5, categories: rules },
    ['diff', s1, s2, '--top', '5', '--categories', rules, '--json', '-'], ['diff', s1, s2, '--top', '5', '--categories', rules]);
  assert.ok(JSON.stringify(d.structuredContent.categories_at_peak).includes('"swiglu"'));
  const bad = path.join(tmp, 'bad.rules');
  fs.writeFileSync(bad, 'site ok -> fine\nfile (unclosed -> broken\n');
  for (const f of [bad, path.join(tmp, 'no_such.rules'), tmp]) {
    for (const [name, args, argv] of [['report', { path: s2, categories: f }, ['report', s2, '--categories', f]],
      ['diff', { base: s1, other: s2, categories: f }, ['diff', s1, s2, '--categories', f]]]) {
      const t = await client.callTool({ name, arguments: args });
      const c = await cli(argv);
      assert.equal(t.isError, true, `${name} ${f}`);
      assert.equal(c.status, 1, c.stderr);
      assert.equal(`oomscope-cli: error: ${t.content[0].text}\n`, c.stderr);
    }
  }
  const line = await client.callTool({ name: 'report', arguments: { path: s2, categories: bad } });
  assert.match(line.content[0].text, /bad\.rules: line 2: the regular expression \/\(unclosed\/ does not compile/);
  // Rules for files none of which is a snapshot: refused as the command refuses them (a usage error).
  const gemm = data('jax0.8_rocm_mi300x_gemm.xplane.pb');
  const u = await client.callTool({ name: 'report', arguments: { path: gemm, categories: rules } });
  const uc = await cli(['report', gemm, '--categories', rules]);
  assert.equal(u.isError, true);
  assert.equal(uc.status, 2);
  assert.ok(uc.stderr.includes(u.content[0].text), `${u.content[0].text} / ${uc.stderr}`);
});

test('info on a job\'s per-rank snapshots takes category rules as `info DIR --categories` does', async () => {
  const job = data('ranks/oom_job');
  const rules = data('categories/ranks.rules');
  const plain = await same('info', { path: job }, ['info', job, '--json'], ['info', job]);
  assert.equal(plain.structuredContent.category_rules, null);
  const r = await same('info', { path: job, categories: rules }, ['info', job, '--categories', rules, '--json'],
    ['info', job, '--categories', rules]);
  assert.equal(r.structuredContent.category_rules, rules);
  assert.ok(JSON.stringify(r.structuredContent.imbalance).includes('"embedding table"'));
  // One file with rules is refused as the command refuses it (a usage error), in its words.
  const one = data('ranks/oom_job/rank0_oom.pickle');
  const t = await client.callTool({ name: 'info', arguments: { path: one, categories: rules } });
  const c = await cli(['info', one, '--categories', rules]);
  assert.equal(t.isError, true);
  assert.equal(c.status, 2);
  assert.ok(c.stderr.includes(t.content[0].text), `${t.content[0].text} / ${c.stderr}`);
});

test('whatif equals `whatif --json -` and its text: the standard set, one scenario, an oom entry, a device', async () => {
  const small = data('torch_snapshot_cs336_small_peak.pickle');
  const std = await same('whatif', { path: small }, ['whatif', small, '--json', '-'], ['whatif', small]);
  assert.equal(std.structuredContent.validated, true);
  assert.ok(std.structuredContent.scenarios.length > 1);
  assert.ok(std.structuredContent.scenarios[0].validation.matched);
  const decomfl = data('torch_snapshot_decomfl_windows_with_trace.pickle');
  const one = await same('whatif', { path: decomfl, settings: ['expandable_segments:True'], capacity: '1.7GiB' },
    ['whatif', decomfl, '--set', 'expandable_segments:True', '--capacity', '1.7GiB', '--json', '-'],
    ['whatif', decomfl, '--set', 'expandable_segments:True', '--capacity', '1.7GiB']);
  assert.equal(one.structuredContent.capacity_source, 'option');
  assert.equal(one.structuredContent.scenarios.length, 2);
  await same('whatif', { path: small, capacity: 1073741824, settings: ['max_split_size_mb:64', 'roundup_power2_divisions:4'], device: 0 },
    ['whatif', small, '--capacity', '1073741824', '--set', 'max_split_size_mb:64', '--set', 'roundup_power2_divisions:4',
      '--device', '0', '--json', '-'], null);
  const oom = data('torch2.0_snapshot_flexgen_oom.pickle');
  await same('whatif', { path: oom }, ['whatif', oom, '--json', '-'], ['whatif', oom]);
  // Refusals in the CLI's words: a setting, a capacity, a snapshot without a trace, not a snapshot.
  const refused = [
    [{ path: small, settings: ['max_split_size_mb:8'] }, ['whatif', small, '--set', 'max_split_size_mb:8']],
    [{ path: small, settings: ['expandable_segments:maybe'] }, ['whatif', small, '--set', 'expandable_segments:maybe']],
    [{ path: small, capacity: '0' }, ['whatif', small, '--capacity', '0']],
    [{ path: small, capacity: '12 parsecs' }, ['whatif', small, '--capacity', '12 parsecs']],
    [{ path: small, device: 3 }, ['whatif', small, '--device', '3']],
    [{ path: data('torch_snapshot_segments_only_diffusion_vit.pickle') }, ['whatif', data('torch_snapshot_segments_only_diffusion_vit.pickle')]],
    [{ path: data('jax0.8_rocm_mi300x_gemm.xplane.pb') }, ['whatif', data('jax0.8_rocm_mi300x_gemm.xplane.pb')]],
    [{ path: path.join(tmp, 'missing.pickle') }, ['whatif', path.join(tmp, 'missing.pickle')]],
  ];
  for (const [args, cmd] of refused) {
    const r = await client.callTool({ name: 'whatif', arguments: args });
    const c = await cli(cmd);
    assert.equal(r.isError, true, JSON.stringify(args));
    assert.notEqual(c.status, 0, cmd.join(' '));
    assert.ok(c.stderr.includes(r.content[0].text), `${JSON.stringify(args)}: ${r.content[0].text} / ${c.stderr}`);
  }
  const typed = await client.callTool({ name: 'whatif', arguments: { path: small, settings: 'expandable_segments:True' } });
  assert.equal(typed.isError, true);
  assert.match(typed.content[0].text, /settings: expected array/);
  // The standard set of the 23,105-entry trace reports progress; a cancelled one stops and the server serves on.
  const progress = [];
  const withProgress = await client.callTool({ name: 'whatif', arguments: { path: decomfl } }, undefined,
    { onprogress: (p) => progress.push(p) });
  assert.equal(withProgress.isError, false);
  assert.ok(progress.length >= 2, `progress notifications: ${progress.length}`);
  for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].progress > progress[i - 1].progress);
  // Cancelled at its first progress notification (the snapshot read), so the replays are still to run: a fixed
  // delay raced the call on an idle machine, where the whole set takes well under 100 ms.
  const ac = new AbortController();
  const call = client.callTool({ name: 'whatif', arguments: { path: decomfl } }, undefined,
    { signal: ac.signal, onprogress: () => ac.abort('the test cancels') });
  await assert.rejects(call);
  const after = await client.callTool({ name: 'whatif', arguments: { path: small, settings: ['expandable_segments:True'] } });
  assert.equal(after.isError, false);
});

test('live: a recording equals `replay --json --table`, forecasts included; an attach returns the same table and forecast shape as `watch`', async () => {
  const rec = path.join(tmp, 'session.oomrec');
  const w = await cli(['watch', agent.endpoint, '--duration', '1.5', '--record', rec, '--json', '--table']);
  assert.equal(w.status, 0, w.stderr);
  await same('live', { recording: rec }, ['replay', rec, '--json', '--table'], ['replay', rec], { lastLine: true });
  const live = await client.callTool({ name: 'live', arguments: { endpoints: [agent.endpoint], seconds: 1 } });
  assert.equal(live.isError, false, live.content[0].text);
  const watched = JSON.parse(w.stdout.trimEnd().split('\n').pop());
  assert.deepEqual(Object.keys(live.structuredContent).sort(), Object.keys(watched).sort());
  const [got] = live.structuredContent.ranks;
  const [want] = watched.ranks;
  for (const key of ['index', 'label', 'endpoint', 'status', 'rank', 'host', 'capacity']) assert.deepEqual(got[key], want[key], key);
  assert.ok(got.samples >= 5, `samples: ${got.samples}`);
  assert.equal(got.headroom, got.capacity - got.last.device_used);
  // Each rank's OOM forecast, as `watch --json --table` carries it: the same fields, derived; the fake
  // agent's allocated grows 1 MB a step against 16 GiB, so its state is one `watch` also gives.
  assert.deepEqual(Object.keys(got.forecast).sort(), Object.keys(want.forecast).sort());
  assert.equal(got.forecast.tag, 'derived');
  assert.equal(got.forecast.state, want.forecast.state);
  assert.match(live.content[0].text, /forecast: /);
  const replayed = await cliJson(['replay', rec, '--json', '--table'], { lastLine: true });
  assert.ok(replayed.ranks[0].forecast, 'the recording\'s table carries the forecast');
});

test('progress notifications while attached, and a call answered during a long call', async () => {
  const progress = [];
  let longDone = false;
  const long = client.callTool({ name: 'live', arguments: { endpoints: [agent.endpoint], seconds: 2 } }, undefined,
    { onprogress: (p) => progress.push(p) }).then((r) => ((longDone = true), r));
  const quick = await client.callTool({ name: 'info', arguments: { path: data('jax0.8_rocm_mi300x_gemm.xplane.pb') } });
  assert.equal(quick.isError, false);
  assert.equal(longDone, false, 'the quick call waited for the long one');
  await client.ping();
  const r = await long;
  assert.equal(r.isError, false);
  assert.ok(progress.length >= 3, `progress notifications: ${progress.length}`);
  for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].progress > progress[i - 1].progress);
  assert.ok(progress.every((p) => p.total === 100));
});

test('a cancelled call stops, and the server keeps serving', async () => {
  const ac = new AbortController();
  const t0 = performance.now();
  const call = client.callTool({ name: 'live', arguments: { endpoints: [agent.endpoint], seconds: 30 } }, undefined,
    { signal: ac.signal });
  setTimeout(() => ac.abort('the test cancels'), 300);
  await assert.rejects(call);
  assert.ok(performance.now() - t0 < 5000);
  const r = await client.callTool({ name: 'info', arguments: { path: data('jax_tpu_v6e_inference.xplane.pb') } });
  assert.equal(r.isError, false);
});

test('bad arguments and hostile files are tool errors in the CLI\'s words', async () => {
  const gemm = data('jax0.8_rocm_mi300x_gemm.xplane.pb');
  const calls = [
    [{ name: 'info', arguments: { path: 5 } }, /path: expected string, got an integer/],
    [{ name: 'info', arguments: {} }, /"path" is required/],
    [{ name: 'report', arguments: { path: gemm, top: 'x' } }, /top: expected integer/],
    [{ name: 'report', arguments: { path: gemm, top: 0 } }, /top/],
    [{ name: 'report', arguments: { path: gemm, verbose: true } }, /unknown argument "verbose"/],
    [{ name: 'report', arguments: { path: gemm, capacity: 1e300 } }, /--capacity/],
    [{ name: 'simulate', arguments: { catch: 'sometimes' } }, /expected one of/],
    [{ name: 'simulate', arguments: { budget: '-4GiB' } }, /--budget/],
    [{ name: 'live', arguments: { endpoints: ['localhost:0'], seconds: 120 } }, /seconds: 120 is above the most allowed, 60/],
    [{ name: 'live', arguments: { endpoints: ['nonsense:port:x'] } }, /./],
  ];
  for (const [params, pattern] of calls) {
    const r = await client.callTool(params);
    assert.equal(r.isError, true, JSON.stringify(params));
    assert.match(r.content[0].text, pattern, JSON.stringify(params));
  }
  // The CLI's own message, word for word.
  const zero = await client.callTool({ name: 'report', arguments: { path: gemm, capacity: '0' } });
  assert.equal(zero.isError, true);
  assert.ok((await cli(['report', gemm, '--capacity', '0'])).stderr.includes(zero.content[0].text));
  for (const f of [data('CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb'), path.join(tmp, 'missing.pickle'), tmp]) {
    for (const name of ['info', 'report']) {
      const r = await client.callTool({ name, arguments: { path: f } });
      const c = await cli([name, f]);
      assert.equal(r.isError, true, f);
      assert.notEqual(c.status, 0);
      assert.equal(`oomscope-cli: error: ${r.content[0].text}\n`, c.stderr);
    }
  }
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool/);
});

test('hostile captures: names are made safe exactly as in the CLI', async () => {
  const maker = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'hostile', 'make_hostile.py');
  const gemm = data('jax0.8_rocm_mi300x_gemm.xplane.pb');
  for (const kind of ['escape-names', 'bad-utf8-names', 'truncated']) {
    const f = path.join(tmp, `${kind}.xplane.pb`);
    execFileSync('python3', [maker, kind, f, '--source', gemm, '--offset', '5000']);
    const r = await client.callTool({ name: 'report', arguments: { path: f } });
    const c = await cli(['report', f]);
    if (c.status !== 0) {
      assert.equal(r.isError, true, kind);
      assert.equal(`oomscope-cli: error: ${r.content[0].text}\n`, c.stderr, kind);
      continue;
    }
    assert.equal(r.isError, false, kind);
    assert.equal(r.content[0].text, c.stdout, kind);
    assert.ok(!r.content[0].text.includes('\x1b'), kind);
    assert.deepEqual(r.structuredContent, await cliJson(['report', f, '--json', '-']), kind);
  }
});

test('measured: per-call overhead of a tool call against the CLI', async () => {
  const f = data('jax0.8_rocm_mi300x_gemm.xplane.pb');
  const n = 20;
  let t0 = performance.now();
  for (let i = 0; i < n; ++i) await client.callTool({ name: 'info', arguments: { path: f } });
  const mcpMs = (performance.now() - t0) / n;
  t0 = performance.now();
  for (let i = 0; i < n; ++i) await cli(['info', f, '--json']);
  const cliMs = (performance.now() - t0) / n;
  t0 = performance.now();
  for (let i = 0; i < n; ++i) await client.ping();
  const pingMs = (performance.now() - t0) / n;
  console.log(`# measured: info on the gemm capture, mean of ${n}: MCP tool call ${mcpMs.toFixed(2)} ms, ` +
    `CLI process ${cliMs.toFixed(2)} ms, MCP ping ${pingMs.toFixed(3)} ms`);
  assert.ok(mcpMs > 0 && cliMs > 0);
});
