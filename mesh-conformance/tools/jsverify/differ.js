#!/usr/bin/env node
'use strict';
// Differential check against another verifier: mutates the signed cores of the published vectors
// (one or two field changes each), re-seals each with the vectors' test key, and asks both this
// verifier and a conformance subject (the JSON-lines protocol of `mesh conformance run`) whether
// the envelope verifies. Prints each disagreement once per kind of mutation.
// Usage: node differ.js "SUBJECT-CMD" [count] [seed]    e.g. node differ.js "./mesh conformance subject" 3000
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const subject = require('./subject');
const cbor = require('./cbor');
const { verifyEnvelope } = require('./receipt');
const { didOf } = require('./didkey');

const [cmd, countArg, seedArg] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: node differ.js "SUBJECT-CMD" [count] [seed]');
  process.exit(2);
}
const count = Number(countArg || 2000);
let rnd = Number(seedArg || 27);
function rand(n) {
  rnd = (rnd * 1103515245 + 12345) % 2147483648;
  return rnd % n;
}
const pick = (a) => a[rand(a.length)];

const vectors = path.resolve(__dirname, '../../../conformance/v1');
const meta = JSON.parse(fs.readFileSync(path.join(vectors, 'reference/meta.json'), 'utf8'));
const seed = Buffer.from(meta.inputs.steward_seed_hex, 'hex');
const priv = crypto.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const pub = crypto.createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(12);
const did = didOf(pub);

function seal(core) {
  const prot = cbor.encode(new Map([[1, -8], [4, Buffer.from(did, 'utf8')]]));
  const payload = cbor.encode(core);
  const sig = crypto.sign(null, cbor.encode(['Signature1', prot, new Uint8Array(0), payload]), priv);
  return cbor.encode(new cbor.Tagged(18, [prot, new Map(), payload, sig]));
}

const bases = ['reference', 'decision', 'commitment'].map((v) => {
  const core = cbor.decode(Buffer.from(fs.readFileSync(path.join(vectors, v, 'signed_core.hex'), 'utf8').trim(), 'hex'));
  return { name: v, core };
});

const HEX = 'ab'.repeat(32);
const U = [0, 1, 2, 4, 5, 7, 1000, 2 ** 32 - 1, 2 ** 32];
const mutations = [
  ['delete', (m) => { const k = pick([...m.keys()]); m.delete(k); return 'delete ' + k; }],
  ['uint', (m) => {
    const k = pick(['tokens_in', 'tokens_out', 'tokens_accepted', 'cache_hit_tokens', 'spec_proposed', 'spec_accepted', 'fidelity_floor',
      'fidelity_met', 'estimated_uj', 'measured_uj', 'uj_per_accepted_token', 'questions_answered', 'options_scored', 'schema_tokens',
      'uj_per_decision', 'uj_per_option_scored', 'sequence', 'fidelity_advertised', 'fidelity_delivered']);
    const v = pick(U);
    m.set(k, v);
    return 'set ' + k;
  }],
  ['text', (m) => {
    const k = pick(['backend', 'recipe', 'route', 'precision', 'energy_provenance', 'grant_breach', 'mesh_receipt']);
    m.set(k, pick(['', 'x', 'fp16', 'HwShunt', 'ModelBased', 'Estimator', 'caveat-unsatisfied', 'budget-exhausted', 'expired', 'mesh/1']));
    return 'text ' + k;
  }],
  ['hex', (m) => { const k = pick(['grant_id', 'weights_digest', 'output_commitment', 'prev', 'request_id']); m.set(k, HEX); return 'hex ' + k; }],
  ['derive', (m) => {
    // Recompute the derived figures after other changes, so that couplings are tested on their own.
    const E = BigInt(m.has('measured_uj') ? m.get('measured_uj') : m.get('estimated_uj') ?? 0);
    for (const [k, d] of [['uj_per_accepted_token', 'tokens_accepted'], ['uj_per_decision', 'questions_answered'], ['uj_per_option_scored', 'options_scored']]) {
      if (m.has(k) && m.has(d) && BigInt(m.get(d)) > 0n) m.set(k, E / BigInt(m.get(d)));
    }
    return 'rederive';
  }],
];

const cases = [];
for (let i = 0; i < count; i++) {
  const b = pick(bases);
  const m = new Map(b.core);
  const what = [b.name];
  const steps = 1 + rand(3);
  for (let s = 0; s < steps; s++) what.push(pick(mutations)[1](m));
  if (rand(2) === 0) what.push(mutations[4][1](m));
  let env;
  try {
    env = seal(m);
  } catch (e) {
    continue;
  }
  cases.push({ id: 'differ/' + i, what: what.join(', '), hex: env.toString('hex') });
}
const answers = subject.ask(cmd, cases.map((c) => ({ id: c.id, op: 'verify_envelope', input: { envelope: c.hex } })));
const kinds = new Map();
let differ = 0;
for (const c of cases) {
  const a = answers.get(c.id);
  if (!a) continue;
  const r = verifyEnvelope(Buffer.from(c.hex, 'hex'));
  const theirs = a.result === 'valid';
  if (r.ok === theirs) continue;
  differ++;
  const their = (a.detail || a.reason || '').replace(/'[^']*'/g, "'…'").replace(/[0-9]+/g, 'N').slice(0, 90);
  const key = r.ok ? 'jsverify accepts, subject refuses: ' + their : 'jsverify refuses (' + r.errors[0].replace(/[0-9]+/g, 'N') + '), subject accepts';
  if (!kinds.has(key)) kinds.set(key, []);
  kinds.get(key).push(c.what + (a.detail ? ' [' + a.detail.slice(0, 160) + ']' : ''));
}
subject.report(kinds);
console.log('differ: ' + cases.length + ' envelopes, ' + answers.size + ' answered, ' + differ + ' verdicts differ');
