#!/usr/bin/env node
'use strict';
// Differential check of grant decisions: builds random chains of one to three links with keys of
// its own (attenuation kept or broken, caveats added, dropped, narrowed or unknown, windows moved,
// links re-issued, parents and signatures forged, callers swapped), presents each for one request,
// and compares this verifier's holder checks with a conformance subject's decide_grant (no
// history, no revocations, so every refusal is one a holder can see).
// Usage: node differ-grants.js "SUBJECT-CMD" [count] [seed]
const crypto = require('crypto');
const cbor = require('./cbor');
const blake3 = require('./blake3');
const { didOf } = require('./didkey');
const presentation = require('./presentation');
const subject = require('./subject');

const [cmd, countArg, seedArg] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: node differ-grants.js "SUBJECT-CMD" [count] [seed]');
  process.exit(2);
}
const count = Number(countArg || 1500);
let rnd = Number(seedArg || 27);
const rand = (n) => (rnd = (rnd * 1103515245 + 12345) % 2147483648) % n;
const pick = (a) => a[rand(a.length)];
const hex = (b) => Buffer.from(b).toString('hex');

function key(i) {
  const seed = Buffer.alloc(32, i + 1);
  const priv = crypto.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  return { priv, did: didOf(crypto.createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(12)) };
}
const K = [0, 1, 2, 3].map(key);
const STEWARD = key(4);
const request = { prompt_hash: 'ab'.repeat(32), prompt_tokens: 5, max_tokens: 16, fidelity_floor: 1, joule_ceiling_uj: 1000 };
const rid = presentation.requestId(request);
const MODEL = 'cd'.repeat(32);
const OTHER = 'ef'.repeat(32);
const T0 = 1800000000;
const AT = T0 + 60;
const modelIn = (w) => new Map([['caveat', 'ModelIn'], ['weights', w]]);
const maxCost = (uj) => new Map([['caveat', 'MaxCostUj'], ['uj', uj]]);

function params(parent) {
  const p = parent ? { ...parent } : { actions: ['infer'], resources: '*', budget: 1000000, nb: T0, exp: T0 + 3600, caveats: pick([[], [modelIn([MODEL])], [maxCost(500)]]) };
  switch (rand(14)) {
    case 0: p.actions = pick([['infer', 'train'], ['train'], []]); break;
    case 1: p.resources = pick([[rid], ['12'.repeat(32)], '*', [rid, '12'.repeat(32)]]); break;
    case 2: p.budget = pick([p.budget + 1, Math.floor(p.budget / 2), 999, 1000, 0]); break;
    case 3: p.nb += pick([-10, 10, 100]); break;
    case 4: p.exp += pick([-10, 10, -3590, -3541]); break;
    case 5: p.caveats = [...p.caveats, pick([modelIn([OTHER]), modelIn([MODEL, OTHER]), maxCost(100), new Map([['caveat', 'Weird'], ['x', 1]])])]; break;
    case 6: p.caveats = []; break;
    case 7: p.caveats = p.caveats.map((c) => (c.get('caveat') === 'ModelIn' ? modelIn(pick([[MODEL, OTHER], [OTHER], []])) : c)); break;
    default:
  }
  return p;
}

function link(issuer, subjectDid, parent, p, forge) {
  const g = new Map([['issuer', issuer.did], ['subject', subjectDid], ['actions', p.actions], ['resources', p.resources], ['budget_uj', p.budget], ['not_before', p.nb], ['expiry', p.exp], ['caveats', p.caveats]]);
  if (parent) g.set('parent', forge === 'parent' ? '00'.repeat(32) : hex(blake3.hash(cbor.encode(parent))));
  const sig = forge === 'signature' ? Buffer.alloc(64, 7) : crypto.sign(null, cbor.encode(g), issuer.priv);
  return new Map([['grant', g], ['signature', sig]]);
}

const cases = [];
for (let i = 0; i < count; i++) {
  const depth = 1 + rand(3);
  const holders = K.slice(0, depth - 1).map((k) => k.did).concat([rand(12) ? STEWARD.did : K[2].did]);
  const chain = [];
  let issuer = K[3];
  let p = null;
  for (let d = 0; d < depth; d++) {
    p = params(p);
    const iss = rand(30) ? issuer : K[rand(4)];
    chain.push(link(iss, holders[d], chain[d - 1], p, pick(['', '', '', '', '', '', '', '', '', '', 'parent', 'signature'])));
    issuer = K.find((k) => k.did === holders[d]) || STEWARD;
  }
  const gid = hex(blake3.hash(cbor.encode(chain[depth - 1])));
  const caller = rand(15) ? (depth > 1 ? K[depth - 2] : K[3]) : K[rand(4)];
  const nonce = Buffer.alloc(16, i % 256);
  const signed = new Map([['request_id', rand(20) ? rid : '99'.repeat(32)], ['grant_id', gid], ['caller', caller.did], ['nonce', nonce]]);
  const pres = hex(cbor.encode(new Map([['chain', chain], ['caller', caller.did], ['nonce', nonce], ['signature', crypto.sign(null, cbor.encode(signed), caller.priv)]])));
  cases.push({ id: 'grant/' + i, pres, model: rand(5) ? MODEL : null });
}
const answers = subject.ask(cmd, cases.map((c) => ({
  id: c.id,
  op: 'decide_grant',
  input: { steward: STEWARD.did, presentation: c.pres, request, model: c.model, at_ms: AT * 1000, revocations: [], history: [], debit_uj: 0 },
})));
const kinds = new Map();
let differ = 0;
for (const c of cases) {
  const a = answers.get(c.id);
  if (!a) continue;
  const r = presentation.check(c.pres, [], { requestId: rid, steward: STEWARD.did, atSeconds: AT, jouleCeilingUj: request.joule_ceiling_uj, model: c.model });
  const mine = r.errors.length === 0;
  if (mine === (a.result === 'valid')) continue;
  differ++;
  const norm = (x) => x.replace(/[0-9a-f]{16,}/g, 'H').replace(/did:key:\w+/g, 'D').replace(/[0-9]+/g, 'N').slice(0, 120);
  const k = mine ? 'jsverify accepts, subject refuses: ' + norm(a.detail || a.reason || '') : 'jsverify refuses (' + norm(r.errors[0]) + '), subject accepts';
  if (!kinds.has(k)) kinds.set(k, []);
  kinds.get(k).push(c.id);
}
subject.report(kinds);
const admitted = [...answers.values()].filter((a) => a.result === 'valid').length;
console.log('differ-grants: ' + cases.length + ' presentations, ' + answers.size + ' answered (' + admitted + ' admitted), ' + differ + ' verdicts differ');
