#!/usr/bin/env node
// Drives `mesh serve` with the official OpenAI Node.js SDK and says what works.
//
// An optional tool, the Node counterpart of sdk_check.py beside it: no test in the build runs it
// or needs Node (see README.md). It starts its own stewards with the `mesh` launcher, on ports from
// --port-base, in a work folder:
//
//   A: no key (an identity that lasts until it stops, grants honoured from memory), console on
//   B: a key and a file journal (grants journalled), console on
//   C: a key without a journal (every grant answered 503 journal_not_durable)
//
// and runs each case against them, printing one line per check and a count at the end. Every
// request the SDK sends goes through a recording `fetch`, so a case can count the SDK's own
// resends and --dump-requests can write the exact bytes for a Java test to replay.
//
// The SDK is loaded from --sdk (the package folder, e.g. node_modules/openai), so two majors can
// be run side by side without installing either where the other lives.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const a = {
    mesh: path.join(here, '..', '..', 'mesh'),
    portBase: 21300,
    sdk: null,
    zod: null,
    dump: null,
    only: null,
    keep: false,
    workDir: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === '--mesh') a.mesh = v();
    else if (k === '--port-base') a.portBase = Number(v());
    else if (k === '--sdk') a.sdk = v();
    else if (k === '--zod') a.zod = v();
    else if (k === '--dump-requests') a.dump = v();
    else if (k === '--only') a.only = v();
    else if (k === '--keep') a.keep = true;
    else if (k === '--work-dir') a.workDir = v();
    else {
      console.error(
        'usage: sdk_check.mjs --sdk NODE_MODULES/openai [--zod NODE_MODULES/zod] [--port-base P]\n' +
          '  [--work-dir DIR] [--dump-requests DIR] [--only SECTION] [--keep] [--mesh LAUNCHER]\n' +
          `unknown argument: ${k}`,
      );
      process.exit(2);
    }
  }
  if (!a.sdk) {
    console.error('sdk_check.mjs: --sdk names the openai package folder to load (node_modules/openai)');
    process.exit(2);
  }
  return a;
}

const args = parseArgs(process.argv.slice(2));
const sdkDir = path.resolve(args.sdk);
const load = (dir, file) => import(pathToFileURL(path.join(dir, file)).href);
const openaiModule = await load(sdkDir, 'index.mjs');
const OpenAI = openaiModule.default;
const { VERSION } = await load(sdkDir, 'version.mjs');
const zodHelpers = await load(sdkDir, 'helpers/zod.mjs').catch(() => null);
const zodDir = args.zod ? path.resolve(args.zod) : path.join(sdkDir, '..', 'zod');
const zod = await load(zodDir, 'index.js').then(
  (m) => m.z ?? m.default ?? m,
  () => null,
);

const RESULTS = [];

function check(name, ok, detail = '') {
  RESULTS.push([name, Boolean(ok)]);
  const d = typeof detail === 'string' ? detail : safeString(detail);
  console.log((ok ? 'ok    ' : 'FAIL  ') + name + (ok ? '' : '  -- ' + d.slice(0, 600)));
}

function note(text) {
  console.log('      note: ' + text);
}

function safeString(v) {
  try {
    return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? String(x) : x));
  } catch {
    return String(v);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every request an SDK client sends: method, url, headers and body text. */
class Recorder {
  constructor() {
    this.requests = [];
    this.fetch = async (url, init = {}) => {
      const headers = {};
      new Headers(init.headers ?? {}).forEach((value, name) => (headers[name] = value));
      let body = '';
      if (typeof init.body === 'string') body = init.body;
      else if (init.body instanceof Uint8Array) body = new TextDecoder().decode(init.body);
      else if (init.body != null) body = '<' + Object.prototype.toString.call(init.body) + '>';
      this.requests.push({ method: init.method ?? 'GET', url: String(url), headers, body });
      return fetch(url, init);
    };
  }

  clear() {
    this.requests.length = 0;
  }
}

function dump(name, rec) {
  if (!args.dump) return;
  fs.mkdirSync(args.dump, { recursive: true });
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_');
  fs.writeFileSync(path.join(args.dump, safe + '.json'), JSON.stringify(rec.requests, null, 1));
}

/** One `mesh serve` process in its own folder, stopped by stop(). */
class Mesh {
  static async start(work, name, port, consolePort, extra) {
    const m = new Mesh();
    m.port = port;
    m.consolePort = consolePort;
    const cmd = ['serve', '--port', String(port)];
    if (consolePort) cmd.push('--console', '--console-port', String(consolePort));
    const out = fs.openSync(path.join(work, name + '.out'), 'w');
    const err = fs.openSync(path.join(work, name + '.err'), 'w');
    m.proc = spawn(launcher, [...cmd, ...extra], {
      cwd: work,
      stdio: ['ignore', out, err],
      env: { ...process.env, MESH_NO_BUILD: '1' },
    });
    m.exited = new Promise((r) => m.proc.on('exit', r));
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (m.proc.exitCode !== null) {
        throw new Error(name + ' exited: ' + fs.readFileSync(path.join(work, name + '.err'), 'utf8'));
      }
      if (await listening(port)) return m;
      await sleep(300);
    }
    throw new Error(name + ' did not listen on ' + port);
  }

  get base() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async console(p) {
    const r = await fetch(`http://127.0.0.1:${this.consolePort}${p}`);
    return r.json();
  }

  async steward() {
    const r = await fetch(this.base + '/mesh/steward');
    return (await r.json()).did;
  }

  async stop() {
    if (this.proc.exitCode !== null) return;
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(t);
  }
}

function listening(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

let launcher;

function cli(work, ...a) {
  const r = spawnSync(launcher, a, {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, MESH_NO_BUILD: '1' },
  });
  if (r.status !== 0) throw new Error(`mesh ${a.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A caller key and a grant to one steward, and presentations signed with the CLI. */
class Grants {
  constructor(work, stewardDid, budgetUj = 50_000_000) {
    this.work = work;
    this.n = 0;
    this.tag = stewardDid.slice(-8);
    this.key = path.join(work, `caller-${this.tag}.key`);
    this.chain = path.join(work, `grant-${this.tag}.hex`);
    cli(work, 'key', 'generate', '--out', this.key);
    cli(work, 'grant', 'issue', '--issuer-key', this.key, '--subject', stewardDid,
      '--budget-uj', String(budgetUj), '--expires', 'PT2H', '--out', this.chain);
  }

  /** The body with `jcp_presentation` in it, signed for it. */
  present(body) {
    this.n += 1;
    const src = path.join(this.work, `body-${this.tag}-${this.n}.json`);
    const out = path.join(this.work, `granted-${this.tag}-${this.n}.json`);
    const pres = path.join(this.work, `presentation-${this.tag}-${this.n}.hex`);
    fs.writeFileSync(src, JSON.stringify(body));
    cli(this.work, 'grant', 'present', '--caller-key', this.key, '--chain', this.chain,
      '--body', src, '--out', pres, '--out-body', out);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  }
}

function client(mesh, rec, opts = {}) {
  return new OpenAI({
    baseURL: mesh.base,
    apiKey: 'unused',
    maxRetries: 2,
    ...(rec ? { fetch: rec.fetch } : {}),
    ...opts,
  });
}

const META = { fidelity_floor: 'F1', joule_ceiling_uj: '200000' };

function chatArgs(extra = {}, prompt = 'Hello from the Node SDK.', maxTokens = 8) {
  return {
    model: 'auto',
    messages: [{ role: 'user', content: prompt }],
    max_tokens: maxTokens,
    metadata: { ...META },
    ...extra,
  };
}

const errorBody = (e) => (e && typeof e.error === 'object' && e.error ? e.error : {});

/** Runs fn, which must reject with cls, our status and code; counts attempts when asked. */
async function expectError(name, fn, cls, status, code, rec, attempts) {
  if (rec) rec.clear();
  try {
    await fn();
    check(name, false, 'no exception');
    return null;
  } catch (e) {
    const detail = `${e?.constructor?.name} ${e?.status} code=${e?.code} msg=${errorBody(e).message}`;
    check(`${name}: ${cls.name} ${status}`, e instanceof cls && e.status === status, detail);
    if (code != null) check(`${name}: code ${code}`, e.code === code, detail);
    const msg = errorBody(e).message;
    check(`${name}: message is ours, request id`,
      Boolean(msg) && String(e.message).includes(msg) && String(e.requestID ?? '').startsWith('req_'),
      `${detail} requestID=${e?.requestID}`);
    if (attempts != null && rec) {
      check(`${name}: sent ${attempts} time(s)`, rec.requests.length === attempts,
        `${rec.requests.length} requests`);
    }
    return e;
  }
}

function receiptsList(view) {
  if (view && typeof view === 'object' && !Array.isArray(view)) {
    for (const k of ['receipts', 'data']) if (Array.isArray(view[k])) return view[k];
  }
  return Array.isArray(view) ? view : [];
}

function findKey(obj, key) {
  if (Array.isArray(obj)) {
    for (const v of obj) {
      const f = findKey(v, key);
      if (f !== undefined) return f;
    }
  } else if (obj && typeof obj === 'object') {
    if (key in obj) return obj[key];
    for (const v of Object.values(obj)) {
      const f = findKey(v, key);
      if (f !== undefined) return f;
    }
  }
  return undefined;
}

async function collect(stream, limit = Infinity) {
  const out = [];
  for await (const x of stream) {
    out.push(x);
    if (out.length >= limit) break;
  }
  return out;
}

// ---- sections ---------------------------------------------------------------------------------

async function runBasic(a, rec) {
  const c = client(a, rec);
  rec.clear();
  const models = [];
  for await (const m of c.models.list()) models.push(m);
  dump('models-list', rec);
  const ids = models.map((m) => m.id);
  check('models.list names the backends', ids.length > 0, ids);
  const m = await c.models.retrieve(ids[0]);
  check('models.retrieve returns the listed model', m.id === ids[0], m);
  await expectError('models.retrieve unknown', () => c.models.retrieve('no-such-model'),
    openaiModule.NotFoundError, 404, 'model_not_found', rec, 1);

  rec.clear();
  const { data: r, response, request_id } = await c.chat.completions.create(chatArgs()).withResponse();
  dump('chat-plain', rec);
  check('chat: content', Boolean(r.choices[0].message.content), r);
  check('chat: finish_reason length', r.choices[0].finish_reason === 'length', r.choices[0]);
  check('chat: usage counts', r.usage.completion_tokens === 8 && r.usage.prompt_tokens > 0, r.usage);
  check('chat: usage.energy receipt', Boolean(r.usage.energy?.envelope_hex), r.usage);
  check('chat: _request_id and withResponse().request_id',
    String(r._request_id).startsWith('req_') && request_id === response.headers.get('x-request-id'),
    [r._request_id, request_id]);
  const sent = rec.requests[0] ?? { headers: {}, body: '' };
  note('headers sent: ' + Object.keys(sent.headers).sort().join(' '));
  note('body sent: ' + sent.body);

  rec.clear();
  const chunks = await collect(await c.chat.completions.create(chatArgs({ stream: true })));
  dump('chat-stream', rec);
  const text = chunks.map((ch) => ch.choices[0]?.delta?.content ?? '').join('');
  check('stream: every chunk has a choice', chunks.every((ch) => ch.choices.length === 1), chunks.length);
  check('stream: text matches the whole reply', text === r.choices[0].message.content, text);
  const last = chunks.at(-1);
  check('stream: finish chunk carries energy',
    last.choices[0].finish_reason === 'length' && last.energy !== undefined, last);

  rec.clear();
  const withUsage = await collect(
    await c.chat.completions.create(chatArgs({ stream: true, stream_options: { include_usage: true } })),
  );
  dump('chat-stream-usage', rec);
  const u = withUsage.at(-1);
  check('stream include_usage: last chunk has no choices and usage',
    u.choices.length === 0 && u.usage?.completion_tokens === 8, u);
  check('stream include_usage: usage.energy', u.usage?.energy !== undefined, u.usage);
  check('stream include_usage: other chunks have usage null',
    withUsage.slice(0, -1).every((ch) => ch.usage == null), withUsage.slice(0, -1).map((ch) => ch.usage));

  const raw = await c.chat.completions.create(chatArgs()).asResponse();
  check('asResponse: headers', String(raw.headers.get('x-request-id')).startsWith('req_')
    && String(raw.headers.get('content-type')).startsWith('application/json'),
  [...raw.headers.entries()]);
  const rawStream = await c.chat.completions.create(chatArgs({ stream: true })).asResponse();
  const sseText = await rawStream.text();
  check('asResponse stream: SSE ends with data: [DONE]', sseText.trimEnd().endsWith('data: [DONE]'),
    sseText.slice(-200));
  check('asResponse stream: content type',
    String(rawStream.headers.get('content-type')).startsWith('text/event-stream'),
    rawStream.headers.get('content-type'));

  // The stream helper: Node's, unlike Python's, does not raise on finish_reason length.
  rec.clear();
  try {
    const s = c.chat.completions.stream(chatArgs());
    for await (const _ of s) {
      // drained
    }
    const fin = await s.finalChatCompletion();
    dump('chat-stream-helper', rec);
    check('chat.completions.stream helper: finalChatCompletion', fin.choices[0].finish_reason === 'length'
      && fin.choices[0].message.content === r.choices[0].message.content, fin);
    const h = rec.requests[0]?.headers ?? {};
    note('stream helper headers: x-stainless-helper-method=' + h['x-stainless-helper-method']);
  } catch (e) {
    check('chat.completions.stream helper', false, String(e));
  }

  try {
    const s = c.chat.completions.stream(chatArgs({ stream_options: { include_usage: true } }));
    const fin = await s.finalChatCompletion();
    check('chat.completions.stream helper with include_usage: usage with energy',
      fin.usage?.completion_tokens === 8 && fin.usage?.energy !== undefined, fin.usage);
  } catch (e) {
    check('chat.completions.stream helper with include_usage', false, String(e));
  }

  // Responses API.
  rec.clear();
  const rr = await c.responses.create({
    model: 'auto', input: 'Hello responses.', max_output_tokens: 8, metadata: { ...META },
  });
  dump('responses-plain', rec);
  check('responses: output_text', Boolean(rr.output_text), rr);
  check('responses: incomplete for max_output_tokens', rr.status === 'incomplete'
    && rr.incomplete_details?.reason === 'max_output_tokens', rr);
  check('responses: usage', rr.usage?.output_tokens === 8, rr.usage);
  check('responses: the cut message is incomplete too', rr.output[0].status === 'incomplete', rr.output[0]);
  rec.clear();
  const again = await c.responses.create({
    model: 'auto',
    input: [{ role: 'user', content: 'Hello responses.' }, ...rr.output, { role: 'user', content: 'Go on.' }],
    max_output_tokens: 4,
    metadata: { ...META },
  });
  dump('responses-replayed-output', rec);
  check('responses: its output sent back as input is served', again.usage?.output_tokens === 4, again.usage);
  rec.clear();
  const events = await collect(await c.responses.create({
    model: 'auto', input: 'Hello responses.', max_output_tokens: 8, metadata: { ...META }, stream: true,
  }));
  dump('responses-stream', rec);
  const types = events.map((e) => e.type);
  check('responses stream: created..incomplete',
    types[0] === 'response.created' && types.at(-1) === 'response.incomplete', types);
  const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
  check('responses stream: deltas = whole text', deltas === rr.output_text, deltas);
  const seqs = events.map((e) => e.sequence_number);
  check('responses stream: sequence numbers 0..n', seqs.every((s, i) => s === i), seqs);
  const itemDone = events.filter((e) => e.type === 'response.output_item.done');
  check('responses stream: output_item.done says incomplete', itemDone[0]?.item?.status === 'incomplete',
    itemDone);
  try {
    const s = c.responses.stream({
      model: 'auto', input: 'Hello responses.', max_output_tokens: 8, metadata: { ...META },
    });
    const got = [];
    for await (const e of s) got.push(e.type);
    const fin = await s.finalResponse();
    check('responses.stream helper: finalResponse incomplete',
      fin.status === 'incomplete' && got.at(-1) === 'response.incomplete', [fin.status, got.at(-1)]);
  } catch (e) {
    check('responses.stream helper', false, String(e));
  }
}

async function runOptions(a, rec) {
  const c = client(a, rec, { maxRetries: 0 });
  const refusals = [
    ['n=2', { n: 2 }, 'n'],
    ['logprobs', { logprobs: true }, 'logprobs'],
    ['top_logprobs', { logprobs: true, top_logprobs: 2 }, null],
    ['tools', { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }, 'tools'],
    ['tool_choice', { tool_choice: 'none' }, 'tool_choice'],
    ['stop', { stop: ['x'] }, 'stop'],
    ['response_format json_object', { response_format: { type: 'json_object' } }, 'response_format'],
    ['audio', { modalities: ['audio'], audio: { voice: 'alloy', format: 'wav' } }, null],
    ['web_search_options', { web_search_options: {} }, 'web_search_options'],
    ['prediction', { prediction: { type: 'content', content: 'x' } }, null],
    ['parallel_tool_calls', { parallel_tool_calls: true }, null],
    ['functions (legacy)', { functions: [{ name: 'f', parameters: { type: 'object' } }] }, null],
    ['seed', { seed: 1 }, null],
  ];
  for (const [name, extra, param] of refusals) {
    rec.clear();
    try {
      const r = await c.chat.completions.create(chatArgs(extra));
      check(`option ${name}: served (honoured or harmless?)`, true);
      note(`${name} served, finish=${r.choices[0].finish_reason}`);
    } catch (e) {
      const ok = e instanceof openaiModule.BadRequestError
        && ['unsupported', 'invalid_field', 'unsupported_schema'].includes(e.code)
        && (param == null || e.param === param);
      check(`option ${name}: 400 ${e.code} param=${e.param}`, ok, `${e.status} ${e.message}`);
    }
    dump('option-' + name.split(' ')[0], rec);
  }

  // Unknown and harmless fields: the Node SDK sends any key of the params object as it is.
  const extras = [
    ['unknown body field', { frobnicate: 1 }],
    ['null body field', { user: null }],
    ['user', { user: 'u-1' }],
    ['temperature/top_p', { temperature: 0.2, top_p: 0.9 }],
    ['max_completion_tokens', { max_completion_tokens: 4, max_tokens: undefined }],
    ['store false', { store: false }],
    ['service_tier', { service_tier: 'auto' }],
    ['reasoning_effort', { reasoning_effort: 'low' }],
    ['presence_penalty', { presence_penalty: 0.1, frequency_penalty: 0.1 }],
    ['logit_bias', { logit_bias: { 1: 1 } }],
    ['stream_options without stream', { stream_options: { include_usage: true } }],
    ['safety_identifier', { safety_identifier: 'x' }],
    ['prompt_cache_key', { prompt_cache_key: 'x' }],
    ['verbosity', { verbosity: 'low' }],
    ['stream false', { stream: false }],
  ];
  for (const [name, extra] of extras) {
    rec.clear();
    try {
      const r = await c.chat.completions.create(chatArgs(extra));
      note(`${name} served (${r.usage.completion_tokens} tokens)`);
      check(`${name}: answered`, true);
    } catch (e) {
      note(`${name} refused ${e.status} ${safeString(e.error)}`);
      check(`${name}: refused with a typed 4xx naming a field`,
        e.status >= 400 && e.status < 500 && errorBody(e).message, e.error);
    }
    dump('extra-' + name.split(' ')[0], rec);
  }
  for (const [name, opts] of [
    ['extra header', { headers: { 'X-Custom': '1' } }],
    ['extra query', { query: { 'api-version': '2024' } }],
    ['idempotency key', { idempotencyKey: 'idem-1' }],
  ]) {
    rec.clear();
    try {
      await c.chat.completions.create(chatArgs(), opts);
      check(`${name}: answered`, true);
    } catch (e) {
      check(`${name}: answered`, false, `${e.status} ${e.message}`);
    }
  }

  // Structured output: a json_schema is a typed decision.
  const schema = {
    type: 'object',
    properties: { duplicate: { type: 'boolean', description: 'Dup?' } },
    required: ['duplicate'],
    additionalProperties: false,
  };
  rec.clear();
  const r = await c.chat.completions.create(chatArgs({
    response_format: { type: 'json_schema', json_schema: { name: 't', schema, strict: true } },
  }));
  dump('json-schema', rec);
  let parsed = null;
  try {
    parsed = JSON.parse(r.choices[0].message.content);
  } catch {
    // reported below
  }
  check('json_schema: content is JSON with the field', parsed && typeof parsed.duplicate === 'boolean',
    r.choices[0].message.content);
  check('json_schema: finish_reason stop', r.choices[0].finish_reason === 'stop', r.choices[0]);
  try {
    const p = await c.chat.completions.parse(chatArgs({
      response_format: { type: 'json_schema', json_schema: { name: 't', schema, strict: true } },
    }));
    check('chat.completions.parse with a JSON schema', typeof p.choices[0].message.parsed?.duplicate === 'boolean',
      p.choices[0].message);
  } catch (e) {
    check('chat.completions.parse with a JSON schema', false, String(e));
  }
  await expectError('json_schema with stream: true',
    () => c.chat.completions.create(chatArgs({
      stream: true,
      response_format: { type: 'json_schema', json_schema: { name: 't', schema, strict: true } },
    })),
    openaiModule.BadRequestError, 400, 'unsupported', rec, 1);

  // Unicode and long prompts.
  for (const [name, prompt] of [
    ['unicode BMP+astral', 'Grüße 你好 🎉 עברית \u200d'],
    ['unicode combining', 'e\u0301'.repeat(50)],
    ['nul char', 'a\u0000b'],
    ['lone surrogate', 'x\ud800y'],
  ]) {
    rec.clear();
    try {
      const r2 = await c.chat.completions.create(chatArgs({}, prompt));
      // JSON.stringify writes a lone surrogate as \ud800, which the server must refuse or serve as
      // U+FFFD; it is served here only if the SDK replaced it before sending.
      check(`prompt ${name}: served`, r2.usage.completion_tokens === 8, r2.usage);
      if (name === 'lone surrogate') note('lone surrogate sent as: ' + (rec.requests[0]?.body ?? '').slice(0, 120));
    } catch (e) {
      check(`prompt ${name}: 400 ${e.code}`, name === 'lone surrogate' && e.code === 'invalid_unicode',
        `${e.status} ${e.message}`);
    }
    dump('prompt-' + name.split(' ')[0], rec);
  }
  for (const size of [100_000, 900_000]) {
    try {
      await c.chat.completions.create(chatArgs({}, 'w '.repeat(size / 2)));
      check(`long prompt ${size} chars: served`, true);
    } catch (e) {
      check(`long prompt ${size} chars: typed refusal ${e.status} ${e.code}`,
        [413, 422].includes(e.status) && errorBody(e).message, e.error);
    }
  }
  const c2 = client(a, rec);
  await expectError('body over the limit', () => c2.chat.completions.create(chatArgs({}, 'w'.repeat(1_100_000))),
    openaiModule.APIError, 413, 'body_too_large', rec, 1);
  await expectError('max_tokens over every backend', () => c2.chat.completions.create(chatArgs({ max_tokens: 1e9 })),
    openaiModule.UnprocessableEntityError, 422, 'no_admissible_backend', rec, 1);
  await expectError('unknown model', () => c2.chat.completions.create(chatArgs({ model: 'gpt-9' })),
    openaiModule.NotFoundError, 404, 'model_not_found', rec, 1);
  await expectError('no messages', () => c2.chat.completions.create(chatArgs({ messages: [] })),
    openaiModule.BadRequestError, 400, null, rec, 1);
  await expectError('bad metadata', () => c2.chat.completions.create(chatArgs({ metadata: { fidelity_floor: 'F9' } })),
    openaiModule.BadRequestError, 400, 'invalid_metadata', rec, 1);
  await expectError('responses: previous_response_id', () => c2.responses.create({
    model: 'auto', input: 'x', max_output_tokens: 4, previous_response_id: 'resp_1',
  }), openaiModule.BadRequestError, 400, 'unsupported', rec, 1);
  await expectError('responses: tools', () => c2.responses.create({
    model: 'auto', input: 'x', max_output_tokens: 4, tools: [{ type: 'web_search' }],
  }), openaiModule.BadRequestError, 400, 'unsupported', rec, 1);
  await expectError('responses.retrieve', () => c2.responses.retrieve('resp_123'),
    openaiModule.NotFoundError, 404, 'not_found', rec, 1);
  await expectError('responses.cancel', () => c2.responses.cancel('resp_123'),
    openaiModule.NotFoundError, 404, 'not_found', rec, 1);
  await expectError('embeddings', () => c2.embeddings.create({ model: 'auto', input: 'x' }),
    openaiModule.NotFoundError, 404, 'not_found', rec, 1);
  await expectError('models.retrieve with POST (405)', () => c2.post('/models/auto', { body: {} }),
    openaiModule.APIError, 405, 'method_not_allowed', rec, 1);
}

async function runResponsesOptions(a, rec) {
  // The Responses API's options, sent through the SDK as written: each is served, or refused
  // with a typed 4xx naming it (SPEC.md 70 lists which).
  const c = client(a, rec, { maxRetries: 0 });
  const base = { model: 'auto', input: 'Hello responses.', max_output_tokens: 4, metadata: { ...META } };
  for (const [name, extra] of [
    ['instructions', { instructions: 'Be brief.' }],
    ['text.format text', { text: { format: { type: 'text' } } }],
    ['text.format json_object', { text: { format: { type: 'json_object' } } }],
    ['text.verbosity', { text: { verbosity: 'low' } }],
    ['reasoning', { reasoning: { effort: 'low' } }],
    ['truncation auto', { truncation: 'auto' }],
    ['store true', { store: true }],
    ['store false', { store: false }],
    ['parallel_tool_calls', { parallel_tool_calls: false }],
    ['tool_choice none', { tool_choice: 'none' }],
    ['tool_choice required', { tool_choice: 'required' }],
    ['service_tier', { service_tier: 'auto' }],
    ['include logprobs', { include: ['message.output_text.logprobs'] }],
    ['include other', { include: ['reasoning.encrypted_content'] }],
    ['top_logprobs 2', { top_logprobs: 2 }],
    ['background true', { background: true }],
    ['conversation', { conversation: 'conv_1' }],
    ['prompt', { prompt: { id: 'pmpt_1' } }],
    ['max_tool_calls', { max_tool_calls: 2 }],
    ['stream_options without stream', { stream_options: { include_obfuscation: false } }],
    ['prompt_cache_key', { prompt_cache_key: 'k' }],
    ['safety_identifier', { safety_identifier: 'x' }],
    ['user', { user: 'u-1' }],
    ['temperature/top_p', { temperature: 0.2, top_p: 0.9 }],
    ['unknown field', { frobnicate: 1 }],
    ['input_image item', { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] }],
    ['function_call_output item', { input: [{ type: 'function_call_output', call_id: 'c1', output: 'x' }] }],
    ['reasoning item', { input: [{ type: 'reasoning', id: 'rs_1', summary: [] }, { role: 'user', content: 'x' }] }],
  ]) {
    rec.clear();
    try {
      const r = await c.responses.create({ ...base, ...extra });
      note(`responses ${name} served (${r.usage?.output_tokens} tokens, ${r.status})`);
      check(`responses ${name}: answered`, r.usage?.output_tokens > 0, r.usage);
    } catch (e) {
      note(`responses ${name} refused ${e.status} ${e.code} param=${e.param}`);
      check(`responses ${name}: refused with a typed 4xx naming a field`,
        e.status >= 400 && e.status < 500 && errorBody(e).message && e.code, e.error ?? String(e));
    }
    dump('responses-option-' + name.split(' ')[0], rec);
  }
}

async function runParse(a, rec) {
  const c = client(a, rec);
  if (!zodHelpers || !zod) {
    check('zod helpers available offline', false, `helpers=${Boolean(zodHelpers)} zod=${Boolean(zod)}`);
    return;
  }
  const Triage = zod.object({ duplicate: zod.boolean(), team: zod.enum(['finance', 'ops', 'legal']) });
  try {
    rec.clear();
    const r = await c.chat.completions.parse(chatArgs({
      response_format: zodHelpers.zodResponseFormat(Triage, 'triage'),
    }, 'Invoice 4411 again?'));
    dump('parse-zod-chat', rec);
    const p = r.choices[0].message.parsed;
    check('chat.completions.parse with zodResponseFormat', p && typeof p.duplicate === 'boolean'
      && ['finance', 'ops', 'legal'].includes(p.team), r.choices[0].message);
  } catch (e) {
    check('chat.completions.parse with zodResponseFormat', false, String(e));
  }
  try {
    rec.clear();
    const rr = await c.responses.parse({
      model: 'auto', input: 'Invoice 4411 again?', metadata: { ...META },
      text: { format: zodHelpers.zodTextFormat(Triage, 'triage') },
    });
    dump('parse-zod-responses', rec);
    check('responses.parse with zodTextFormat', rr.output_parsed && typeof rr.output_parsed.duplicate === 'boolean',
      rr.output);
  } catch (e) {
    check('responses.parse with zodTextFormat', false, String(e));
  }
}

async function runGrants(a, b, cc, ga, gb, work, rec) {
  const c = client(a, rec);
  const body = ga.present(chatArgs({}, 'granted chat'));
  rec.clear();
  const r = await c.chat.completions.create(body);
  dump('granted-chat', rec);
  check('granted chat: served with grant id', Boolean(r.usage.energy?.receipt?.grant_id), r.usage);
  await expectError('granted twice', () => c.chat.completions.create(body),
    openaiModule.PermissionDeniedError, 403, 'presentation-spent', rec, 1);
  const body2 = ga.present(chatArgs({}, 'granted chat 2'));
  body2.max_tokens = 9;
  await expectError('granted body changed', () => c.chat.completions.create(body2),
    openaiModule.AuthenticationError, 401, 'bad-signature', rec, 1);
  await expectError('malformed presentation', () => c.chat.completions.create(chatArgs({ jcp_presentation: 'zz' })),
    openaiModule.BadRequestError, 400, 'malformed_presentation', rec, 1);

  const gc = new Grants(work, await cc.steward());
  const c3 = client(cc, rec);
  const e = await expectError('grant on a journal-less key', () => c3.chat.completions.create(gc.present(chatArgs({}, 'granted not durable'))),
    openaiModule.InternalServerError, 503, 'journal_not_durable', rec, 1);
  if (e) check('journal_not_durable: x-should-retry false', e.headers?.get('x-should-retry') === 'false', [...(e.headers ?? [])]);

  // A granted stream cancelled mid-way with an AbortController: one receipt, the grant debited
  // exactly what that receipt sealed, nothing left reserved.
  const cb = client(b, rec);
  for (const how of ['AbortController', 'break']) {
    const before = receiptsList(await b.console('/v1/mesh/receipts?limit=50'));
    const body4 = gb.present(chatArgs({ stream: true }, `granted stream, ${how}`, 4000));
    rec.clear();
    const ac = new AbortController();
    let got = 0;
    let threw = null;
    try {
      const s = await cb.chat.completions.create(body4, { signal: ac.signal });
      for await (const _ of s) {
        got += 1;
        if (got >= 3) {
          if (how === 'break') break;
          ac.abort();
        }
      }
    } catch (err) {
      threw = err;
    }
    dump('granted-stream-' + how, rec);
    note(`${how}: ${got} chunks read, then ${threw ? threw.constructor.name + ': ' + threw.message : 'the loop ended quietly'}`);
    await sleep(1500);
    const after = receiptsList(await b.console('/v1/mesh/receipts?limit=50'));
    const fresh = after.slice(0, Math.max(0, after.length - before.length));
    check(`granted stream stopped by ${how}: one new receipt`, fresh.length === 1, fresh.length);
    if (fresh.length) {
      const toks = findKey(fresh[0], 'tokens_out');
      check(`granted stream stopped by ${how}: fewer tokens than asked`, toks > 0 && toks < 4000, toks);
      const gid = fresh[0].grant_id;
      const sealed = after.filter((x) => x.grant_id === gid).reduce((s, x) => s + (x.energy_uj ?? 0), 0);
      const gv = (await b.console('/v1/mesh/grants')).data?.filter((x) => x.grant_id === gid) ?? [];
      check(`granted stream stopped by ${how}: debited what its receipts sealed, nothing reserved`,
        gv.length && gv[0].debited_uj === sealed && gv[0].reserved_uj === 0, [sealed, gv]);
    }
    await expectError(`granted stream stopped by ${how}: resend refused spent`,
      async () => collect(await cb.chat.completions.create(body4)),
      openaiModule.PermissionDeniedError, 403, 'presentation-spent', rec, 1);
  }

  // A granted whole (not streamed) request aborted while the engine runs: sealed once, debited
  // what was sealed, and its presentation spent.
  {
    const before = receiptsList(await b.console('/v1/mesh/receipts?limit=50'));
    const bodyW = gb.present(chatArgs({}, 'granted whole, aborted', 4000));
    const ac = new AbortController();
    rec.clear();
    const p = cb.chat.completions.create(bodyW, { signal: ac.signal });
    setTimeout(() => ac.abort(), 15);
    let outcome;
    try {
      await p;
      outcome = 'answered before the abort';
    } catch (err) {
      outcome = err.constructor.name;
    }
    note(`granted whole request aborted after 15 ms: ${outcome}, ${rec.requests.length} sent`);
    check('granted whole request aborted: sent once', rec.requests.length === 1, rec.requests.length);
    await sleep(1500);
    const after = receiptsList(await b.console('/v1/mesh/receipts?limit=50'));
    const fresh = after.slice(0, Math.max(0, after.length - before.length));
    check('granted whole request aborted: at most one receipt', fresh.length <= 1, fresh.length);
    if (fresh.length === 1) {
      const gid = fresh[0].grant_id;
      const sealed = after.filter((x) => x.grant_id === gid).reduce((s, x) => s + (x.energy_uj ?? 0), 0);
      const gv = (await b.console('/v1/mesh/grants')).data?.filter((x) => x.grant_id === gid) ?? [];
      check('granted whole request aborted: debited what its receipts sealed, nothing reserved',
        gv.length && gv[0].debited_uj === sealed && gv[0].reserved_uj === 0, [sealed, gv]);
    }
    await expectError('granted whole request aborted: resend refused spent',
      () => cb.chat.completions.create(bodyW),
      openaiModule.PermissionDeniedError, 403, 'presentation-spent', rec, 1);
  }

  // A granted stream aborted at once, before or about when its head arrives, then sent again by
  // the caller: however far the first attempt got, the presentation pays for one serve at most.
  for (const delay of [0, 2, 10]) {
    const before = receiptsList(await b.console('/v1/mesh/receipts?limit=50'));
    const bodyE = gb.present(chatArgs({ stream: true }, `granted stream, aborted after ${delay} ms`, 4000));
    const ac = new AbortController();
    rec.clear();
    setTimeout(() => ac.abort(), delay);
    let first;
    try {
      const s = await cb.chat.completions.create(bodyE, { signal: ac.signal });
      for await (const _ of s) {
        // read until the abort ends it
      }
      first = 'read to its end';
    } catch (err) {
      first = err.constructor.name;
    }
    let second;
    try {
      await collect(await cb.chat.completions.create(bodyE), 2);
      second = 'served';
    } catch (err) {
      second = err.code ?? err.constructor.name;
    }
    // The serve ends when its engine sees the disconnect; wait for its seal (15 s at most).
    const t0 = Date.now();
    let after;
    let fresh;
    do {
      await sleep(250);
      after = receiptsList(await b.console('/v1/mesh/receipts?limit=50'));
      fresh = after.slice(0, Math.max(0, after.length - before.length));
    } while (fresh.length === 0 && Date.now() - t0 < 15_000);
    note(`granted stream aborted after ${delay} ms: ${first}; sent again: ${second}; ${fresh.length} receipt(s)`
      + ` after ${Date.now() - t0} ms`);
    check(`granted stream aborted after ${delay} ms, then resent: one receipt in all`, fresh.length === 1,
      [first, second, fresh.length]);
    if (fresh.length === 1) {
      const gid = fresh[0].grant_id;
      const sealed = after.filter((x) => x.grant_id === gid).reduce((t, x) => t + (x.energy_uj ?? 0), 0);
      const gv = (await b.console('/v1/mesh/grants')).data?.filter((x) => x.grant_id === gid) ?? [];
      check(`granted stream aborted after ${delay} ms: debited what was sealed, nothing reserved`,
        gv.length && gv[0].debited_uj === sealed && gv[0].reserved_uj === 0, [sealed, gv]);
    }
  }

  // A granted serve the SDK times out on: the SDK sends it again, and the resend is refused spent.
  const before5 = receiptsList(await b.console('/v1/mesh/receipts?limit=50')).length;
  const body5 = gb.present(chatArgs({}, 'granted, timed out', 4000));
  const ct = client(b, rec, { timeout: 50, maxRetries: 1 });
  rec.clear();
  try {
    await ct.chat.completions.create(body5);
    check('granted timeout: (served within 50 ms)', true);
  } catch (err) {
    if (err instanceof openaiModule.PermissionDeniedError) {
      check('granted timeout, SDK resend: 403 presentation-spent (documented)',
        err.code === 'presentation-spent' && rec.requests.length === 2, rec.requests.length);
    } else {
      check(`granted timeout: both attempts timed out (${err.constructor.name})`,
        err instanceof openaiModule.APIConnectionTimeoutError && rec.requests.length === 2, rec.requests.length);
    }
  }
  dump('granted-timeout', rec);
  await sleep(2000);
  const after5 = receiptsList(await b.console('/v1/mesh/receipts?limit=50')).length;
  check('granted timeout: served once, not twice', after5 - before5 <= 1, [before5, after5]);

  const body6 = ga.present({ model: 'auto', input: 'granted responses', max_output_tokens: 6, metadata: { ...META } });
  rec.clear();
  const rr = await c.responses.create(body6);
  dump('granted-responses', rec);
  check('granted responses: served', rr.usage?.output_tokens === 6, rr.usage);
}

async function runCancel(a, rec) {
  const c = client(a, rec);
  const before = receiptsList(await a.console('/v1/mesh/receipts?limit=100')).length;
  const ac = new AbortController();
  const s = await c.chat.completions.create(chatArgs({ stream: true }, undefined, 4000), { signal: ac.signal });
  let n = 0;
  let threw = null;
  try {
    for await (const _ of s) {
      if (++n === 3) ac.abort();
    }
  } catch (e) {
    threw = e;
  }
  note(`abort mid-stream: ${n} chunks, then ${threw ? threw.constructor.name : 'the loop ended quietly'}`);
  await sleep(1500);
  const after = receiptsList(await a.console('/v1/mesh/receipts?limit=100')).length;
  check('ungranted stream aborted: one receipt', after - before === 1, [before, after]);
  // stream.controller.abort(), the SDK's own handle.
  const s2 = await c.chat.completions.create(chatArgs({ stream: true }, undefined, 4000));
  n = 0;
  for await (const _ of s2) {
    if (++n === 2) s2.controller.abort();
  }
  await sleep(1500);
  const after2 = receiptsList(await a.console('/v1/mesh/receipts?limit=100')).length;
  check('stream.controller.abort(): one receipt', after2 - after === 1, [after, after2]);
  // Aborted before the answer: an APIUserAbortError, nothing resent.
  const ac3 = new AbortController();
  rec.clear();
  const p = c.chat.completions.create(chatArgs({}, undefined, 4000), { signal: ac3.signal });
  setTimeout(() => ac3.abort(), 5);
  try {
    await p;
    check('aborted before the answer: (answered first)', true);
  } catch (e) {
    check('aborted before the answer: APIUserAbortError, sent once',
      e instanceof openaiModule.APIUserAbortError && rec.requests.length === 1, `${e.constructor.name} ${rec.requests.length}`);
  }
}

async function runRetries(rec, work, port) {
  const cfg = path.join(work, 'busy.json');
  const slashed = 'meta-llama/Llama-3.1-8B';
  const spaced = 'ft:gpt-4o:org::x y+z%';
  const semi = 'ft:model;v=2,b';
  fs.writeFileSync(cfg, JSON.stringify({
    max_concurrent_serves: 1,
    backends: [
      { type: 'reference', name: slashed, fidelity: 'F1', uj_per_token: 1, max_output_tokens: 10_000_000,
        max_concurrent_serves: 1, max_waiting_serves: 0 },
      { type: 'reference', name: spaced, fidelity: 'F1', uj_per_token: 1 },
      { type: 'reference', name: semi, fidelity: 'F1', uj_per_token: 1 },
    ],
  }));
  const d = await Mesh.start(work, 'busy', port, 0, ['--config', cfg]);
  try {
    const c = client(d, rec);
    for (const id of [slashed, spaced, semi]) {
      rec.clear();
      try {
        const m = await c.models.retrieve(id);
        check(`models.retrieve of ${JSON.stringify(id)} as the Node SDK sends it`, m.id === id,
          rec.requests.map((x) => x.url));
      } catch (e) {
        check(`models.retrieve of ${JSON.stringify(id)}`, false, `${e.status} ${e.message} ${rec.requests.map((x) => x.url)}`);
      }
      dump('models-retrieve-' + id, rec);
    }
    const big = chatArgs({ stream: true, metadata: { fidelity_floor: 'F1', joule_ceiling_uj: '100000000000' } },
      undefined, 1_000_000);
    const held = await client(d).chat.completions.create(big);
    const it = held[Symbol.asyncIterator]();
    await it.next();
    await sleep(500);
    const t0 = Date.now();
    const e = await expectError('429 while busy', () => c.chat.completions.create(chatArgs()),
      openaiModule.RateLimitError, 429, null, rec, 3);
    if (e) {
      check('429: code overloaded or backend_busy', ['overloaded', 'backend_busy'].includes(e.code), e.error);
      check('429: Retry-After 1 and no x-should-retry', e.headers.get('retry-after') === '1'
        && e.headers.get('x-should-retry') === null, [...e.headers]);
      check('429: SDK waited about Retry-After between tries', Date.now() - t0 >= 1400, Date.now() - t0);
      const counts = rec.requests.map((x) => x.headers['x-stainless-retry-count']);
      check('429: x-stainless-retry-count 0, 1, 2', counts.join() === '0,1,2', counts);
    }
    held.controller.abort();
  } finally {
    await d.stop();
  }
}

/** What the fake upstream's refusal names, which no client reply may carry (SPEC.md 70). */
const UPSTREAM_SECRET = 'gpu-7.internal.example sk-upstream-0123';

class FakeUpstream {
  // An OpenAI-compatible upstream whose behaviour the prompt picks: 'cut' (a stream that stops
  // after two pieces), 'slow' (answers after 3 s), 'fail' (500), 'refuse' (400 naming what the
  // operator runs); otherwise a short answer.
  constructor(port) {
    this.seen = 0;
    this.server = http.createServer((req, res) => {
      const parts = [];
      req.on('data', (p) => parts.push(p));
      req.on('end', async () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        this.seen += 1;
        const prompt = JSON.stringify(body.messages ?? '');
        if (prompt.includes('fail')) {
          const data = '{"error":{"message":"upstream broke","type":"server_error"}}';
          res.writeHead(500, { 'content-type': 'application/json', 'content-length': data.length });
          res.end(data);
          return;
        }
        if (prompt.includes('refuse')) {
          const data = JSON.stringify({ error: { message: `model m on ${UPSTREAM_SECRET} cannot take this role`, type: 'invalid_request_error' } });
          res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
          res.end(data);
          return;
        }
        if (prompt.includes('slow')) await sleep(3000);
        const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
        const chunk = (delta, finish) => ({
          id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm',
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' });
          for (const piece of ['hi', ' there']) {
            res.write('data: ' + JSON.stringify(chunk({ content: piece }, null)) + '\n\n');
            await sleep(200);
          }
          if (prompt.includes('cut')) {
            res.socket.destroy();
            return;
          }
          res.write('data: ' + JSON.stringify(chunk({}, 'stop')) + '\n\n');
          res.write('data: ' + JSON.stringify({ ...chunk({}, null), choices: [], usage }) + '\n\ndata: [DONE]\n\n');
          res.end();
          return;
        }
        const data = JSON.stringify({
          id: 'c1', object: 'chat.completion', created: 1, model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi there' }, finish_reason: 'stop' }],
          usage,
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
        res.end(data);
      });
    });
    this.ready = new Promise((r) => this.server.listen(port, '127.0.0.1', r));
  }

  stop() {
    this.server.closeAllConnections?.();
    return new Promise((r) => this.server.close(r));
  }
}

async function runUpstream(rec, work, port) {
  const up = new FakeUpstream(port + 10);
  await up.ready;
  const cfg = path.join(work, 'upstream.json');
  fs.writeFileSync(cfg, JSON.stringify({
    backends: [
      { type: 'upstream', name: 'remote', base_url: `http://127.0.0.1:${port + 10}/v1`, model: 'm', fidelity: 'F1', uj_per_token: 1 },
      { type: 'upstream', name: 'dead', base_url: `http://127.0.0.1:${port + 11}/v1`, model: 'm', fidelity: 'F1', uj_per_token: 1 },
    ],
  }));
  const d = await Mesh.start(work, 'upstream', port, port + 12, ['--config', cfg]);
  try {
    const g = new Grants(work, await d.steward());
    const c = client(d, rec);
    const r = await c.chat.completions.create(chatArgs({ model: 'remote' }));
    check('upstream: served', r.choices[0].message.content === 'hi there', r);
    await expectError('upstream down, ungranted: 502 resent by the SDK',
      () => c.chat.completions.create(chatArgs({ model: 'dead' })),
      openaiModule.InternalServerError, 502, 'engine_failed', rec, 3);
    const e = await expectError('upstream down, granted: 502 sent once',
      () => c.chat.completions.create(g.present(chatArgs({ model: 'dead' }))),
      openaiModule.InternalServerError, 502, 'engine_failed', rec, 1);
    if (e) check('granted 502: x-should-retry false', e.headers.get('x-should-retry') === 'false', [...e.headers]);
    await expectError('upstream 500, granted: 502 sent once',
      () => c.chat.completions.create(g.present(chatArgs({ model: 'remote' }, 'fail please'))),
      openaiModule.InternalServerError, 502, 'engine_failed', rec, 1);
    // An upstream's refusal of the request: the client's to change (400, not resent), in our
    // words only, whole or streamed.
    const refusedWhole = await expectError('upstream 400, ungranted: 400 sent once',
      () => c.chat.completions.create(chatArgs({ model: 'remote' }, 'refuse please')),
      openaiModule.BadRequestError, 400, 'upstream_refused', rec, 1);
    if (refusedWhole) check('upstream 400: its own words kept from the client',
      !JSON.stringify(errorBody(refusedWhole)).includes('internal.example'), errorBody(refusedWhole));
    try {
      for await (const ch of await c.chat.completions.create(chatArgs({ model: 'remote', stream: true }, 'refuse please'))) void ch;
      check('upstream 400 on a stream: SDK throws', false, 'no throw');
    } catch (err) {
      // The 200 waits for the first piece of text, so the refusal has its own status and class.
      check(`upstream 400 on a stream: ${err?.constructor?.name} ${err?.status} code ${err?.code}`,
        err instanceof openaiModule.BadRequestError && err.status === 400
          && err?.code === 'upstream_refused' && !String(err?.message).includes('internal.example'),
        `${err?.message}`);
    }
    // A chat stream the upstream cuts: the SDK throws from the loop, with our code.
    const pieces = [];
    try {
      for await (const ch of await c.chat.completions.create(chatArgs({ model: 'remote', stream: true }, 'cut me'))) {
        pieces.push(ch);
      }
      check('upstream cut mid chat stream: SDK throws', false, `no throw after ${pieces.length} chunks`);
    } catch (err) {
      check(`upstream cut mid chat stream: APIError ${err.code} after ${pieces.length} chunks, status ${err.status}`,
        err instanceof openaiModule.APIError && err.code === 'engine_failed', `${err.constructor.name} ${err.message}`);
    }
    // A responses stream the upstream cuts: the `error` event (yielded by 6.x, thrown by 7.x).
    const evs = [];
    try {
      for await (const ev of await c.responses.create({
        model: 'remote', input: 'cut me', max_output_tokens: 8, metadata: { ...META }, stream: true,
      })) {
        evs.push(ev.type);
      }
      check('upstream cut mid responses stream: error event yielded', evs.includes('error'), evs);
      note('responses stream error: yielded as an event of type "error"');
    } catch (err) {
      check(`upstream cut mid responses stream: APIError ${err.code} thrown after ${evs.length} events`,
        err instanceof openaiModule.APIError && err.code === 'engine_failed', `${err.constructor.name} ${err.message}`);
      note(`responses stream error: thrown as ${err.constructor.name}, status ${err.status}, code ${err.code}`);
    }
    try {
      const s = c.responses.stream({ model: 'remote', input: 'cut me', max_output_tokens: 8, metadata: { ...META } });
      for await (const _ of s) {
        // drained
      }
      await s.finalResponse();
      check('responses.stream helper on a cut upstream: rejects', false, 'resolved');
    } catch (err) {
      note(`responses.stream helper rejects with ${err?.constructor?.name}: code ${err?.code}`);
      check('responses.stream helper on a cut upstream: rejects naming engine_failed',
        err?.code === 'engine_failed', safeString(err));
    }
    // A granted call the SDK times out on: its resend is refused spent, sealed once.
    const before = receiptsList(await d.console('/v1/mesh/receipts?limit=100')).length;
    const ct = client(d, rec, { timeout: 1000, maxRetries: 1 });
    rec.clear();
    try {
      await ct.chat.completions.create(g.present(chatArgs({ model: 'remote' }, 'slow please')));
      check('granted timeout: resend served?', false, 'served');
    } catch (err) {
      if (err instanceof openaiModule.PermissionDeniedError) {
        check('granted timeout, SDK resend: 403 presentation-spent (documented)',
          err.code === 'presentation-spent' && rec.requests.length === 2, rec.requests.length);
      } else {
        check(`granted timeout: both attempts timed out (${err.constructor.name}, 2 sent)`,
          rec.requests.length === 2, rec.requests.length);
      }
    }
    await sleep(3500);
    const after = receiptsList(await d.console('/v1/mesh/receipts?limit=100')).length;
    check('granted timeout: sealed once', after - before === 1, [before, after]);
    // The same streamed: the SDK's timeout covers the wait for the answer's head.
    const beforeS = receiptsList(await d.console('/v1/mesh/receipts?limit=100')).length;
    rec.clear();
    let streamed = 0;
    try {
      for await (const _ of await ct.chat.completions.create(
        g.present(chatArgs({ model: 'remote', stream: true }, 'slow please')),
      )) {
        streamed += 1;
      }
      note(`granted slow stream: ${streamed} chunks, ${rec.requests.length} sent`);
      check('granted slow stream: read whole, sent once', rec.requests.length === 1, rec.requests.length);
    } catch (err) {
      note(`granted slow stream: ${err.constructor.name} ${err.code ?? ''} after ${streamed} chunks, ${rec.requests.length} sent`);
      check('granted slow stream timed out: resend refused spent or none',
        rec.requests.length === 1 || err.code === 'presentation-spent', `${err.constructor.name} ${rec.requests.length}`);
    }
    await sleep(3500);
    const afterS = receiptsList(await d.console('/v1/mesh/receipts?limit=100')).length;
    check('granted slow stream: sealed once', afterS - beforeS === 1, [beforeS, afterS]);
    // An ungranted call the SDK times out on is sent again, and the upstream serves both.
    const seenBefore = up.seen;
    rec.clear();
    try {
      await ct.chat.completions.create(chatArgs({ model: 'remote' }, 'slow please'));
      check('ungranted timeout: (answered)', false, 'answered within the timeout');
    } catch (err) {
      check('ungranted timeout: APIConnectionTimeoutError after 2 attempts (documented)',
        err instanceof openaiModule.APIConnectionTimeoutError && rec.requests.length === 2,
        `${err.constructor.name} ${rec.requests.length}`);
    }
    await sleep(3500);
    note(`ungranted timeout: the upstream was asked ${up.seen - seenBefore} time(s)`);
  } finally {
    await d.stop();
    await up.stop();
  }
}

async function runShutdown(rec, work, port) {
  const cfg = path.join(work, 'drain.json');
  fs.writeFileSync(cfg, JSON.stringify({
    backends: [{ type: 'reference', name: 'small', fidelity: 'F1', uj_per_token: 1, max_output_tokens: 2_000_000 }],
  }));
  const d = await Mesh.start(work, 'drain', port, 0, ['--config', cfg]);
  try {
    const big = chatArgs({ stream: true, metadata: { fidelity_floor: 'F1', joule_ceiling_uj: '100000000000' } },
      undefined, 1_000_000);
    const held = await client(d).chat.completions.create(big); // unread, so the drain waits for it
    await held[Symbol.asyncIterator]().next();
    d.proc.kill('SIGTERM');
    await sleep(500);
    const e = await expectError('while draining', () => client(d, rec).chat.completions.create(chatArgs()),
      openaiModule.InternalServerError, 503, 'shutting_down', rec, 3);
    if (e) {
      check('shutting_down: Retry-After 1, connection closed, no x-should-retry',
        e.headers.get('retry-after') === '1' && e.headers.get('x-should-retry') === null, [...e.headers]);
    }
    held.controller.abort();
  } finally {
    await d.stop();
  }
}

// ---- main -------------------------------------------------------------------------------------

async function main() {
  launcher = path.resolve(args.mesh);
  const work = args.workDir ? path.resolve(args.workDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-check-'));
  fs.mkdirSync(work, { recursive: true });
  if (fs.readdirSync(work).length) {
    console.error(`--work-dir ${work} is not empty: give a new or empty folder`);
    process.exit(2);
  }
  const rec = new Recorder();
  for (const k of ['b.key', 'c.key']) cli(work, 'key', 'generate', '--out', path.join(work, k));
  const p = args.portBase;
  const servers = [];
  let status = 1;
  try {
    const a = await Mesh.start(work, 'a', p + 1, p + 11, []);
    servers.push(a);
    const b = await Mesh.start(work, 'b', p + 2, p + 12,
      ['--key', 'b.key', '--journal', path.join(work, 'b.journal'), '--fresh-chain']);
    servers.push(b);
    const cc = await Mesh.start(work, 'c', p + 3, 0, ['--key', 'c.key', '--fresh-chain']);
    servers.push(cc);
    console.log(`openai ${VERSION} (node ${process.version}) against ${a.base} ${b.base} ${cc.base}`);
    const want = (name) => !args.only || name.includes(args.only);
    const sections = [
      ['basic', () => runBasic(a, rec)],
      ['options', () => runOptions(a, rec)],
      ['responses-options', () => runResponsesOptions(a, rec)],
      ['parse', () => runParse(a, rec)],
      ['grants', async () => runGrants(a, b, cc, new Grants(work, await a.steward()),
        new Grants(work, await b.steward()), work, rec)],
      ['cancel', () => runCancel(a, rec)],
      ['retries', () => runRetries(rec, work, p + 4)],
      ['upstream', () => runUpstream(rec, work, p + 5)],
      ['shutdown', () => runShutdown(rec, work, p + 6)],
    ];
    for (const [name, run] of sections) {
      if (!want(name)) continue;
      try {
        await run();
      } catch (e) {
        check(`section ${name} ran to its end`, false, e?.stack ?? String(e));
      }
    }
    const failed = RESULTS.filter((x) => !x[1]).length;
    console.log(`${RESULTS.length} checks, ${failed} failed`);
    status = failed ? 1 : 0;
  } finally {
    for (const m of servers) await m.stop();
    if (args.keep || args.workDir) console.log('kept', work);
    else fs.rmSync(work, { recursive: true, force: true });
  }
  process.exit(status);
}

await main();
