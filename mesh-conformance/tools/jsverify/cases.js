#!/usr/bin/env node
'use strict';
// Runs the project's published case files (conformance/v1/cases) through this verifier and lists
// every case where its verdict differs from the file's. A difference is either a defect in the
// implementation that wrote the cases or a different reading of mesh-1; README lists those found.
// Usage: node cases.js [cases-dir]
const fs = require('fs');
const path = require('path');
const cbor = require('./cbor');
const { verifyEnvelope } = require('./receipt');
const { checkChains } = require('./chain');
const commitment = require('./commitment');
const presentation = require('./presentation');

const dir = process.argv[2] || path.resolve(__dirname, '../../../conformance/v1/cases');
const verdicts = {
  verify_envelope(input) {
    const r = verifyEnvelope(Buffer.from(input.envelope, 'hex'));
    return { valid: r.ok, why: r.errors.join('; '), warn: r.warnings.join('; ') };
  },
  verify_chain(input) {
    const rs = input.envelopes.map((h) => verifyEnvelope(Buffer.from(h, 'hex')));
    const errs = rs.flatMap((r, i) => r.errors.map((e) => '#' + i + ' ' + e));
    // A holder's list is in log order: a sequence out of place is a break even if the set is whole.
    rs.forEach((r, i) => {
      if (i > 0 && r.core && rs[i - 1].core && BigInt(r.core.get('sequence')) !== BigInt(rs[i - 1].core.get('sequence')) + 1n) {
        errs.push('#' + i + ' §6.3 sequence ' + r.core.get('sequence') + ' does not follow ' + rs[i - 1].core.get('sequence'));
      }
    });
    if (input.from_genesis && rs[0] && rs[0].core && rs[0].core.get('sequence') !== 0) errs.push('#0 §6.3 a chain shown from genesis starts at sequence 0');
    rs.forEach((r, i) => {
      if (i > 0 && r.core && rs[0].core && r.core.get('steward') !== rs[0].core.get('steward')) errs.push('#' + i + ' §6.3 sealed by another steward');
    });
    errs.push(...checkChains(rs).errors);
    return { valid: errs.length === 0, why: errs.join('; ') };
  },
  decode_cbor(input) {
    try {
      const v = cbor.decode(Buffer.from(input.cbor, 'hex'));
      const bad = [];
      (function walk(x) {
        if (x instanceof cbor.Simple) bad.push('major type 7 (' + x.kind + ')');
        else if (x instanceof cbor.Tagged) walk(x.value);
        else if (Array.isArray(x)) x.forEach(walk);
        else if (x instanceof Map) for (const [k, y] of x) (walk(k), walk(y));
      })(v);
      return { valid: bad.length === 0, why: bad.join('; ') };
    } catch (e) {
      return { valid: false, why: e.message };
    }
  },
  commit_output(input, expected) {
    const payload = commitment.payloadDigest(input.prompt_payload);
    const c = commitment.commitment(Buffer.from(input.opening, 'hex'), Buffer.from(input.request_id, 'hex'), payload, input.output_tokens);
    const ok = expected ? payload.toString('hex') === expected.payload_digest && c.toString('hex') === expected.output_commitment : true;
    return { valid: ok, why: ok ? '' : 'computed ' + payload.toString('hex') + ' / ' + c.toString('hex') };
  },
  decide_grant(input) {
    const rid = presentation.requestId(input.request);
    const r = presentation.check(input.presentation, [], {
      requestId: rid,
      steward: input.steward,
      atSeconds: input.at_ms / 1000,
      jouleCeilingUj: input.request.joule_ceiling_uj,
      model: input.model === undefined ? undefined : input.model,
    });
    return { valid: r.errors.length === 0, why: r.errors.join('; '), stateful: true };
  },
};

const STATEFUL = ['revoked', 'presentation-spent', 'budget-exhausted', 'caveat-unsatisfied'];
let total = 0;
let differ = 0;
let skipped = 0;
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
  const d = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  for (const c of d.cases || []) {
    const fn = verdicts[c.op];
    if (!fn) {
      skipped++;
      continue;
    }
    total++;
    let got;
    try {
      got = fn(c.input, c.expected);
    } catch (e) {
      got = { valid: false, why: 'verifier threw: ' + e.message };
    }
    const want = c.result === 'valid';
    // A holder cannot see a steward's revocations, spend, spent nonces or the backend's model; a
    // grant case this verifier passes is expected only when the steward's refusal rests on those.
    if (got.valid === want) continue;
    if (got.stateful && got.valid && !want && STATEFUL.includes(c.reason)) continue;
    differ++;
    console.log('DIFF ' + c.id + ': file says ' + c.result + (c.expected && c.expected.reason ? ' (' + c.expected.reason + ')' : '') + ', jsverify says ' + (got.valid ? 'valid' : 'invalid: ' + got.why));
    if (c.comment) console.log('     ' + c.comment);
  }
}
console.log('cases: ' + total + ' checked, ' + differ + ' differ, ' + skipped + ' of ops this verifier does not model');
