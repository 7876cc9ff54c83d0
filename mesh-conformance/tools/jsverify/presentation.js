'use strict';
// JCP presentations and grant chains (mesh-1 §2.1, jcp-profile "Grants and chains",
// "Presentations"). mesh-1 fixes the bytes the caller signs; jcp-profile fixes that a link is the
// grant's canonical CBOR signed by its issuer. It leaves the grant id's bytes to the
// implementation, so this module tries the two natural readings and reports which one the
// chain's parent links use (README, "Where the spec is silent").
const cbor = require('./cbor');
const blake3 = require('./blake3');
const { publicKeyOf, verifyEd25519 } = require('./didkey');

const hex = (b) => Buffer.from(b).toString('hex');

// Candidate grant ids of one signed link {grant, signature}.
function idCandidates(link) {
  return {
    'BLAKE3(canonical_cbor(grant))': hex(blake3.hash(cbor.encode(link.get('grant')))),
    'BLAKE3(canonical_cbor({grant, signature}))': hex(blake3.hash(cbor.encode(link))),
  };
}

function asSet(v) {
  if (v === '*') return null; // all
  return Array.isArray(v) ? v : [v];
}

function subset(child, parent) {
  if (parent === null) return true;
  if (child === null) return false;
  return child.every((x) => parent.includes(x));
}

function caveatKey(c) {
  return c instanceof Map ? c.get('caveat') : undefined;
}

// Does the child's caveat list keep (or narrow) every parent caveat?
function keepsCaveats(childCaveats, parentCaveats) {
  for (const pc of parentCaveats) {
    const kind = caveatKey(pc);
    const same = childCaveats.filter((c) => caveatKey(c) === kind);
    if (same.length === 0) return 'drops parent caveat ' + kind;
    if (kind === 'ModelIn' && !same.some((c) => subset(c.get('weights'), pc.get('weights')))) return 'widens ModelIn';
    if (kind === 'MaxCostUj' && !same.some((c) => BigInt(c.get('uj')) <= BigInt(pc.get('uj')))) return 'raises MaxCostUj';
  }
  return null;
}

// Checks the chain's links (signature, linkage, attenuation). Returns {errors, warnings, leafId, idRule}.
function checkChain(chain) {
  const errors = [];
  const warnings = [];
  if (!Array.isArray(chain) || chain.length === 0) return { errors: ['§2.1 chain is empty or not an array'], warnings };
  let idRule = null;
  const ids = [];
  chain.forEach((link, i) => {
    const at = 'link ' + i + ': ';
    if (!(link instanceof Map) || !(link.get('grant') instanceof Map) || !(link.get('signature') instanceof Uint8Array)) {
      errors.push(at + 'not a signed grant {grant, signature}');
      ids.push(null);
      return;
    }
    const g = link.get('grant');
    try {
      const key = publicKeyOf(g.get('issuer'));
      if (!verifyEd25519(key, cbor.encode(g), link.get('signature'))) errors.push(at + 'bad-signature: issuer signature over canonical CBOR of the grant does not verify');
    } catch (e) {
      errors.push(at + 'issuer: ' + e.message);
    }
    try {
      publicKeyOf(g.get('subject'));
    } catch (e) {
      errors.push(at + 'subject: ' + e.message);
    }
    ids.push(idCandidates(link));
    for (const c of g.get('caveats') || []) {
      if (!['ModelIn', 'MaxCostUj'].includes(caveatKey(c))) errors.push(at + 'unknown-caveat: ' + JSON.stringify(String(caveatKey(c))) + ' (unknown caveats fail closed)');
    }
    if (i === 0) {
      if (g.has('parent')) warnings.push(at + 'root names a parent');
      return;
    }
    const p = chain[i - 1].get('grant');
    if (!(p instanceof Map)) return;
    if (g.get('issuer') !== p.get('subject')) errors.push(at + 'broken-chain: issuer is not the previous link\'s subject');
    const parent = g.get('parent');
    const match = ids[i - 1] && Object.entries(ids[i - 1]).find(([, id]) => id === parent);
    if (!match) errors.push(at + 'broken-chain: parent ' + parent + ' matches no reading of the previous link\'s id');
    else if (idRule === null) idRule = match[0];
    else if (idRule !== match[0]) errors.push(at + 'parent uses a different id rule from earlier links');
    if (!subset(asSet(g.get('actions')), asSet(p.get('actions')))) errors.push(at + 'not-attenuated: actions widen');
    if (!subset(asSet(g.get('resources')), asSet(p.get('resources')))) errors.push(at + 'not-attenuated: resources widen');
    if (BigInt(g.get('budget_uj')) > BigInt(p.get('budget_uj'))) errors.push(at + 'not-attenuated: budget above the parent\'s');
    if (BigInt(g.get('not_before')) < BigInt(p.get('not_before')) || BigInt(g.get('expiry')) > BigInt(p.get('expiry'))) {
      errors.push(at + 'not-attenuated: window outside the parent\'s');
    }
    const cav = keepsCaveats(g.get('caveats') || [], p.get('caveats') || []);
    if (cav) errors.push(at + 'not-attenuated: ' + cav);
  });
  const leafIds = ids[ids.length - 1];
  return { errors, warnings, leafIds, idRule, leaf: chain[chain.length - 1].get('grant') };
}

// request_id as ContentId.of(request): BLAKE3 over the request's canonical CBOR (§3.1), with the
// content ids inside it as hex text, as the receipt carries them.
function requestId(request) {
  const m = new Map(Object.entries(request));
  return hex(blake3.hash(cbor.encode(m)));
}

// p: a presentation (hex string, bytes or decoded Map). ctx: {requestId?, steward?, receipts}.
function check(p, receipts, ctx = {}) {
  const errors = [];
  const warnings = [];
  let m = p;
  try {
    if (typeof p === 'string') m = cbor.decode(Buffer.from(p, 'hex'));
    else if (p instanceof Uint8Array) m = cbor.decode(p);
  } catch (e) {
    return { errors: ['§2.1 presentation is not deterministic CBOR: ' + e.message], warnings };
  }
  if (!(m instanceof Map)) return { errors: ['§2.1 presentation is not a CBOR map'], warnings };
  const chain = checkChain(m.get('chain'));
  if (!ctx.requestId && chain.leafIds) {
    // With no request beside it, a presentation is tied to a receipt that debited its leaf: that
    // receipt names the request, and the steward that holds the leaf. A leaf spent several times
    // has several such receipts; the one whose request the caller signed is the match.
    const ids = Object.values(chain.leafIds);
    const debits = receipts.filter((r) => r.core && ids.includes(r.core.get('grant_id')));
    for (const d of debits) {
      const attempt = check(m, [], {
        ...ctx,
        requestId: d.core.get('request_id'),
        steward: ctx.steward || d.core.get('steward'),
        model: d.core.has('weights_digest') ? d.core.get('weights_digest') : null,
      });
      if (attempt.errors.length === 0) return { ...attempt, note: attempt.note + ', debited by receipt seq ' + d.core.get('sequence') };
    }
    if (debits.length > 0) {
      errors.push('§2.1 caller signature verifies for none of the ' + debits.length + ' request(s) its leaf was debited for');
      return { errors, warnings, note: null };
    }
  }
  errors.push(...chain.errors);
  warnings.push(...chain.warnings);
  const caller = m.get('caller');
  const nonce = m.get('nonce');
  const sig = m.get('signature');
  if (!(nonce instanceof Uint8Array) || nonce.length !== 16) errors.push('§2.1 nonce is not 16 bytes');
  if (!(sig instanceof Uint8Array) || sig.length !== 64) errors.push('§2.1 signature is not 64 bytes');
  if (chain.leaf && caller !== chain.leaf.get('issuer')) errors.push('§2.1 not-issuer: caller is not the leaf\'s issuer');
  if (ctx.steward && chain.leaf && chain.leaf.get('subject') !== ctx.steward) errors.push('§2.1 wrong-holder: leaf subject is not the steward ' + ctx.steward);
  // What a holder can decide without the steward's state: the action, the resource, and the
  // window at a time the caller names (the steward decides at its own clock).
  for (const [i, link] of (Array.isArray(m.get('chain')) ? m.get('chain') : []).entries()) {
    const g = link instanceof Map ? link.get('grant') : null;
    if (!(g instanceof Map)) continue;
    const acts = asSet(g.get('actions'));
    if (acts !== null && !acts.includes('infer')) errors.push('link ' + i + ': action-not-permitted: no infer');
    const res = asSet(g.get('resources'));
    if (ctx.requestId && res !== null && !res.includes(ctx.requestId)) errors.push('link ' + i + ': resource-not-permitted: request ' + ctx.requestId);
    // §2: what a link has left is at most its budget, so a budget below the request's ceiling is
    // refused whatever the steward's spend (which a holder cannot see).
    if (ctx.jouleCeilingUj !== undefined && BigInt(g.get('budget_uj')) < BigInt(ctx.jouleCeilingUj)) {
      errors.push('link ' + i + ': budget-exhausted: budget ' + g.get('budget_uj') + ' µJ below the request\'s ceiling ' + ctx.jouleCeilingUj + ' µJ');
    }
    // §2, jcp-profile: ModelIn admits only the weights the serve ran on; a backend naming none is
    // refused. A granted receipt names them (weights_digest), so a holder can check this too.
    if (ctx.model !== undefined) {
      for (const c of g.get('caveats') || []) {
        if (caveatKey(c) === 'ModelIn' && (ctx.model === null || !(c.get('weights') || []).includes(ctx.model))) {
          errors.push('link ' + i + ': caveat-unsatisfied: ModelIn does not admit ' + (ctx.model === null ? 'a backend that names no weights' : ctx.model));
        }
      }
    }
    if (ctx.atSeconds !== undefined) {
      if (ctx.atSeconds < Number(g.get('not_before'))) errors.push('link ' + i + ': not-yet-valid at ' + ctx.atSeconds);
      if (ctx.atSeconds >= Number(g.get('expiry'))) errors.push('link ' + i + ': expired at ' + ctx.atSeconds);
    }
  }
  let note = null;
  if (chain.leafIds && ctx.requestId && errors.length === 0) {
    // Which reading of the ids does the caller's signature use?
    const key = publicKeyOf(caller);
    const tries = [];
    for (const [rule, gid] of Object.entries(chain.leafIds)) {
      for (const form of ['hex text', 'bytes']) {
        const enc = (h) => (form === 'bytes' ? Buffer.from(h, 'hex') : h);
        const msg = cbor.encode(new Map([['request_id', enc(ctx.requestId)], ['grant_id', enc(gid)], ['caller', caller], ['nonce', nonce]]));
        if (verifyEd25519(key, msg, sig)) tries.push({ rule, form, gid });
      }
    }
    if (tries.length === 0) errors.push('§2.1 caller signature verifies under no reading of {request_id, grant_id, caller, nonce}');
    else {
      note = 'grant id = ' + tries[0].rule + ', ids signed as ' + tries[0].form + ', leaf ' + tries[0].gid;
    }
  } else if (!ctx.requestId) warnings.push('§2.1 no request known for this presentation: caller signature not checked');
  return { errors, warnings, note };
}

module.exports = { check, checkChain, requestId, idCandidates };
