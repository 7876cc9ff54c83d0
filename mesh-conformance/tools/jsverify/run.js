#!/usr/bin/env node
'use strict';
// Checks every artefact under a directory: receipt envelopes (*.cbor binary, *.hex text, or any
// "envelope_hex" string inside *.json), their chains, output-commitment disclosures and grant
// presentations found in *.json. Exit 0 when nothing is in error, 1 otherwise.
// Usage: node run.js DIR [--quiet]
const fs = require('fs');
const path = require('path');
const { verifyEnvelope } = require('./receipt');
const { checkChains } = require('./chain');
const { checkDisclosure } = require('./commitment');
const presentation = require('./presentation');

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out.sort();
}

const pick = (o, ...ks) => ks.map((k) => o[k]).find((x) => x !== undefined);

function isRequest(v) {
  return v && typeof v === 'object' && typeof v.prompt_hash === 'string' && v.joule_ceiling_uj !== undefined;
}

// Collects objects of interest from parsed JSON, wherever they are nested. An object with both
// "inputs" and "expected" (a published vector's meta.json) is also read as their union.
function scanJson(v, file, found) {
  if (Array.isArray(v)) v.forEach((x) => scanJson(x, file, found));
  else if (v && typeof v === 'object') {
    if (v.inputs && v.expected && typeof v.inputs === 'object') {
      const merged = { ...v.inputs, ...v.expected };
      delete merged.inputs;
      scanOne(merged, file, found);
    }
    scanOne(v, file, found);
    for (const x of Object.values(v)) scanJson(x, file, found);
  }
}

function scanOne(v, file, found) {
  if (typeof v.envelope_hex === 'string') {
    found.envelopes.push({ file, hex: v.envelope_hex });
    if (v.receipt && typeof v.receipt === 'object') found.views.push({ file, view: v.receipt, hex: v.envelope_hex });
  }
  const opening = pick(v, 'opening', 'opening_hex');
  const tokens = pick(v, 'tokens', 'output_tokens');
  if (typeof opening === 'string' && Array.isArray(tokens) && !found.disclosures.some((x) => x.d.opening === opening && x.file === file)) {
    found.disclosures.push({
      file,
      d: { opening, tokens, prompt: pick(v, 'prompt', 'prompt_payload'), payload: pick(v, 'payload', 'payload_digest'), request_id: v.request_id },
    });
  }
  const p = pick(v, 'presentation', 'jcp_presentation');
  if (typeof p === 'string' && /^[0-9a-f]+$/i.test(p) && !found.presentations.some((x) => x.p === p)) {
    found.presentations.push({ file, p, request: isRequest(v.request) ? v.request : null, steward: v.steward });
  }
  if (isRequest(v.request) && typeof v.request_id === 'string') found.requests.push({ file, request: v.request, id: v.request_id });
}

function viewDiffs(view, core) {
  const diffs = [];
  const shown = (x) => (x instanceof Uint8Array ? Buffer.from(x).toString('hex') : typeof x === 'bigint' ? Number(x) : x);
  for (const [k, x] of core) if (view[k] !== shown(x)) diffs.push(k + ': view ' + JSON.stringify(view[k]) + ', signed ' + JSON.stringify(shown(x)));
  for (const k of Object.keys(view)) if (!core.has(k) && view[k] !== null) diffs.push(k + ': in the view only (' + JSON.stringify(view[k]) + ')');
  return diffs;
}

function logOf(file) {
  return path.dirname(file);
}

function main() {
  const dir = process.argv[2];
  const quiet = process.argv.includes('--quiet');
  if (!dir) {
    console.error('usage: node run.js DIR [--quiet]');
    process.exit(2);
  }
  const found = { envelopes: [], disclosures: [], presentations: [], requests: [], views: [] };
  for (const f of walk(dir)) {
    const rel = path.relative(dir, f);
    if (f.endsWith('.cbor')) {
      const bytes = fs.readFileSync(f);
      if (bytes[0] === 0xd2 || bytes[0] === 0x84) found.envelopes.push({ file: rel, bytes });
      else found.presentations.push({ file: rel, p: bytes, request: null });
    }
    else if (f.endsWith('.hex')) found.envelopes.push({ file: rel, hex: fs.readFileSync(f, 'utf8').trim() });
    else if (f.endsWith('.sse')) {
      // A streamed answer as received: each "data: {...}" event is read as JSON.
      for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
        if (!line.startsWith('data: {')) continue;
        try {
          scanJson(JSON.parse(line.slice(6)), rel, found);
        } catch (e) {
          console.log('SKIP an event of ' + rel + ': not JSON (' + e.message + ')');
        }
      }
    } else if (f.endsWith('.json')) {
      let v;
      try {
        v = JSON.parse(fs.readFileSync(f, 'utf8'));
      } catch (e) {
        console.log('SKIP ' + rel + ': not JSON (' + e.message + ')');
        continue;
      }
      scanJson(v, rel, found);
    }
  }
  let errorCount = 0;
  let warnCount = 0;
  const seen = new Map();
  for (const e of found.envelopes) {
    const bytes = e.bytes || Buffer.from(e.hex, 'hex');
    const r = verifyEnvelope(bytes);
    if (seen.has(r.id)) continue;
    r.file = e.file;
    seen.set(r.id, r);
    errorCount += r.errors.length;
    warnCount += r.warnings.length;
    const seq = r.core ? r.core.get('sequence') : '?';
    if (!quiet || r.errors.length > 0) {
      console.log((r.ok ? 'OK   ' : 'FAIL ') + e.file + ' seq ' + seq + ' ' + r.id);
      for (const x of r.errors) console.log('  error: ' + x);
      if (!quiet) for (const x of r.warnings) console.log('  warn:  ' + x);
    }
  }
  const results = [...seen.values()];
  const chains = checkChains(results, (r) => logOf(r.file));
  for (const n of chains.notes) console.log('chain: ' + n);
  for (const x of chains.errors) console.log('  error: ' + x);
  errorCount += chains.errors.length;

  const byRequest = new Map();
  for (const r of results) if (r.core) {
    const k = r.core.get('request_id');
    if (!byRequest.has(k)) byRequest.set(k, []);
    byRequest.get(k).push(r);
  }
  for (const { file, d } of found.disclosures) {
    const targets = d.request_id ? byRequest.get(d.request_id) || [] : results;
    const opened = targets.filter((r) => r.core && checkDisclosure(r.core, d).length === 0);
    if (opened.length > 0) console.log('OK   disclosure ' + file + ' opens ' + opened.map((r) => 'seq ' + r.core.get('sequence')).join(', '));
    else {
      errorCount++;
      const why = targets.length > 0 && targets[0].core ? checkDisclosure(targets[0].core, d).join('; ') : 'no receipt for its request';
      console.log('FAIL disclosure ' + file + ': ' + why);
    }
  }
  // §2.3: a response carries the receipt beside its envelope. The readable copy must say what
  // the signed core says, field for field (byte strings as lowercase hex), or a reader of the
  // copy is shown figures nobody signed.
  for (const { file, view, hex } of found.views) {
    const r = verifyEnvelope(Buffer.from(hex, 'hex'));
    if (!r.core) continue;
    const diffs = viewDiffs(view, r.core);
    if (diffs.length > 0) {
      errorCount++;
      console.log('FAIL receipt view ' + file + ' differs from its envelope: ' + diffs.join('; '));
    }
  }
  for (const { file, request, id } of found.requests) {
    const got = presentation.requestId(request);
    if (got === id) console.log('OK   request ' + file + ' ' + id);
    else {
      errorCount++;
      console.log('FAIL request ' + file + ': BLAKE3(canonical_cbor(request)) is ' + got + ', file says ' + id);
    }
  }
  for (const { file, p, request, steward } of found.presentations) {
    const pr = presentation.check(p, results, {
      requestId: request ? presentation.requestId(request) : undefined,
      steward,
      jouleCeilingUj: request ? request.joule_ceiling_uj : undefined,
    });
    errorCount += pr.errors.length;
    console.log((pr.errors.length === 0 ? 'OK   ' : 'FAIL ') + 'presentation ' + file + (pr.note ? ' (' + pr.note + ')' : ''));
    for (const x of pr.errors) console.log('  error: ' + x);
    for (const x of pr.warnings) console.log('  warn:  ' + x);
  }
  console.log('summary: ' + results.length + ' receipts (' + found.views.length + ' beside a readable copy), ' + found.disclosures.length + ' disclosures, ' + found.presentations.length + ' presentations; ' + errorCount + ' errors, ' + warnCount + ' warnings');
  process.exit(errorCount === 0 ? 0 : 1);
}

main();
