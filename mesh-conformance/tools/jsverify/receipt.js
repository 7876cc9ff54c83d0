'use strict';
// The field rules of a mesh/1 receipt (mesh-1 §3.2.1, §3.3, §3.6, §6, §6.1, §6.2), checked on the
// decoded signed core. Each finding says which section it comes from. "error" = the text says
// MUST (or the value cannot mean what the table says); "warn" = SHOULD, or a rule this verifier
// inferred where the text is not explicit (see README "Where the spec is silent").
const cbor = require('./cbor');
const cose = require('./cose');
const blake3 = require('./blake3');
const { publicKeyOf } = require('./didkey');

const PROVENANCES = ['HwShunt', 'ModelBased', 'Estimator'];
const PRECISIONS = ['fp32', 'fp16', 'bf16', 'int8'];
const DENIALS = [
  'bad-signature', 'broken-chain', 'not-attenuated', 'expired', 'not-yet-valid', 'revoked',
  'action-not-permitted', 'resource-not-permitted', 'caveat-unsatisfied', 'unknown-caveat',
  'budget-exhausted', 'wrong-holder', 'not-issuer', 'presentation-spent',
];
const COUNTERS = ['tokens_in', 'tokens_out', 'tokens_accepted', 'cache_hit_tokens', 'spec_proposed', 'spec_accepted'];
const DECISION = ['questions_answered', 'options_scored', 'schema_tokens'];
const KNOWN = new Set([
  'mesh_receipt', 'request_id', 'grant_id', 'backend', 'recipe', 'weights_digest', 'precision', 'route',
  ...COUNTERS, 'fidelity_floor', 'fidelity_advertised', 'fidelity_delivered', 'fidelity_met',
  'estimated_uj', 'measured_uj', 'uj_per_accepted_token', ...DECISION, 'uj_per_decision',
  'uj_per_option_scored', 'energy_provenance', 'grant_breach', 'output_commitment', 'sequence', 'prev',
  'nonce', 'steward',
]);
const HEX32 = /^[0-9a-f]{64}$/;

function isUint(v) {
  return (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'bigint' && v >= 0n);
}

function big(v) {
  return BigInt(v);
}

// Forbidden values anywhere in the signed core (§6): floats, booleans, nulls (and undefined).
function findSimple(v, where, out) {
  if (v instanceof cbor.Simple) out.push(where + ' is a CBOR ' + v.kind);
  else if (v instanceof cbor.Tagged) findSimple(v.value, where, out); else if (Array.isArray(v)) v.forEach((x, i) => findSimple(x, where + '[' + i + ']', out));
  else if (v instanceof Map) for (const [k, x] of v) findSimple(x, where + '.' + String(k), out);
}

function contentId(bytes) {
  return Buffer.from(blake3.hash(bytes)).toString('hex');
}

// Checks one envelope. Returns {ok, errors, warnings, core (Map|null), id (hex content id)}.
function verifyEnvelope(bytes) {
  const errors = [];
  const warnings = [];
  const result = { ok: false, errors, warnings, core: null, id: contentId(bytes), tagged: null };
  const env = cose.parseSign1(bytes, errors);
  if (env === null) return result;
  result.tagged = env.tagged;
  const core = cbor.decodeMap(env.payload, '§6.1 signed core', errors);
  if (core === null) return result;
  result.core = core;
  const simple = [];
  findSimple(core, 'core', simple);
  for (const s of simple) errors.push('§6 ' + s + ' (the signed core forbids floats, booleans and nulls)');
  for (const k of core.keys()) {
    if (typeof k !== 'string') errors.push('§6.1 core key ' + String(k) + ' is not a text string');
    else if (!KNOWN.has(k)) warnings.push('§6.1 unknown field ' + JSON.stringify(k));
  }

  const steward = core.get('steward');
  let key = null;
  if (typeof steward !== 'string') errors.push('§6.1 steward is missing or not text');
  else {
    try {
      key = publicKeyOf(steward);
    } catch (e) {
      errors.push('§6.1 steward: ' + e.message);
    }
  }
  const kid = cose.kidOf(env);
  if (kid === undefined) errors.push('§2/§6.1 envelope carries no COSE kid (the steward identity)');
  else if (!(kid instanceof Uint8Array)) errors.push('§6.1 COSE kid is not a byte string (RFC 9052 §3.1)');
  else if (steward !== undefined && Buffer.from(kid).toString('utf8') !== steward
      && !(key && Buffer.from(kid).equals(Buffer.from(key)))) {
    errors.push('§6.1 COSE kid ' + Buffer.from(kid).toString('hex') + ' is not the steward ' + steward);
  }
  if (key !== null && cose.checkJcr1(env, key, errors)) result.signatureOk = true;

  checkFields(core, errors, warnings);
  result.ok = errors.length === 0;
  return result;
}

function checkFields(core, errors, warnings) {
  const get = (k) => core.get(k);
  const has = (k) => core.has(k);
  const requireText = (k, sec) => {
    if (!has(k)) errors.push(sec + ' ' + k + ' is missing');
    else if (typeof get(k) !== 'string') errors.push(sec + ' ' + k + ' is not text');
  };
  const requireUint = (k, sec) => {
    if (!has(k)) errors.push(sec + ' ' + k + ' is missing');
    else if (!isUint(get(k))) errors.push(sec + ' ' + k + ' is not an unsigned integer');
  };
  const optHex = (k, sec) => {
    if (has(k) && !(typeof get(k) === 'string' && HEX32.test(get(k)))) {
      errors.push(sec + ' ' + k + ' is not 64 lowercase hex digits: ' + JSON.stringify(String(get(k))));
    }
  };

  if (get('mesh_receipt') !== 'mesh/1') errors.push('§6.1 mesh_receipt is ' + JSON.stringify(String(get('mesh_receipt'))) + ', not "mesh/1"');
  if (!has('request_id')) errors.push('§6.1 request_id is missing');
  optHex('request_id', '§6.1');
  optHex('grant_id', '§6.1');
  for (const k of ['backend', 'recipe', 'route']) requireText(k, '§6.1');
  if (has('route') && /[\r\n]/.test(get('route'))) errors.push('§4 route is not one line');

  // §3.6 / §6.1: weights_digest and precision come together or not at all.
  optHex('weights_digest', '§6.1');
  if (has('weights_digest') !== has('precision')) errors.push('§6.1 weights_digest and precision must be carried together');
  if (has('precision')) {
    if (typeof get('precision') !== 'string') errors.push('§6.1 precision is not text');
    else if (!PRECISIONS.includes(get('precision'))) warnings.push('§6.1 precision ' + JSON.stringify(get('precision')) + ' is none of ' + PRECISIONS.join(', '));
  }

  for (const k of COUNTERS) requireUint(k, '§5/§6.1');
  const n = (k) => (isUint(get(k)) ? big(get(k)) : null);
  // §5: spec_accepted counts proposed tokens the target accepted, so it cannot exceed them.
  if (n('spec_accepted') !== null && n('spec_proposed') !== null && n('spec_accepted') > n('spec_proposed')) {
    errors.push('§5 spec_accepted ' + get('spec_accepted') + ' exceeds spec_proposed ' + get('spec_proposed'));
  }

  // §3.2 / §3.2.1 fidelity.
  const fid = (k) => {
    if (!has(k)) return null;
    if (!isUint(get(k)) || big(get(k)) > 4n) {
      errors.push('§3.2 ' + k + ' is not a level 0..4: ' + String(get(k)));
      return null;
    }
    return Number(get(k));
  };
  if (!has('fidelity_floor')) errors.push('§3.1/§6.1 fidelity_floor is missing');
  const floor = fid('fidelity_floor');
  const adv = fid('fidelity_advertised');
  const del = fid('fidelity_delivered');
  if (has('fidelity_advertised') !== has('fidelity_delivered')) errors.push('§3.2.1 fidelity_advertised and fidelity_delivered must be carried together');
  const met = get('fidelity_met');
  if (!has('fidelity_met')) errors.push('§6.1 fidelity_met is missing');
  else if (met !== 0 && met !== 1) errors.push('§6.1 fidelity_met is not 0|1: ' + String(met));
  if (adv !== null && del !== null && del > adv) errors.push('§3.2.1 fidelity_delivered ' + del + ' is above fidelity_advertised ' + adv + ' (such a serve must be refused)');
  if (floor !== null && (met === 0 || met === 1)) {
    if (del !== null) {
      const want = del >= floor ? 1 : 0;
      if (met !== want) errors.push('§3.2.1 fidelity_met is ' + met + ' but delivered ' + del + ' vs floor ' + floor + ' gives ' + want);
    } else if (met !== 1) {
      // Without a delivered figure fidelity_met rests on the advertisement, and §4 only admits a
      // backend whose advertised level is at least the floor. A warning, not an error: mesh-java
      // builds before session 27 sealed this for a backend whose rating dropped mid-serve, and
      // those chains must still verify (README, "differences").
      warnings.push('§3.2.1/§4 fidelity_met is 0 with no delivered figure, but the router admits only backends at or above the floor (sealed by mesh-java before session 27 when a rating dropped mid-serve)');
    }
  }
  // A warning for the reason just above.
  if (adv !== null && floor !== null && adv < floor) warnings.push('§4 fidelity_advertised ' + adv + ' is below the floor ' + floor + ': the backend was not admissible (sealed by mesh-java before session 27 when a rating dropped mid-serve)');

  // §3.3 energy coupling.
  const prov = get('energy_provenance');
  if (!PROVENANCES.includes(prov)) errors.push('§3.3 energy_provenance is ' + JSON.stringify(String(prov)) + ', not one of ' + PROVENANCES.join('|'));
  requireUint('estimated_uj', '§6.1');
  if (has('measured_uj') && !isUint(get('measured_uj'))) errors.push('§6.1 measured_uj is not an unsigned integer');
  if (prov === 'HwShunt' && !has('measured_uj')) errors.push('§3.3 HwShunt without measured_uj');
  // §6.1's table says "present iff HwShunt", but §3.3 lets ModelBased carry one ("MAY be absent").
  // The normative coupling is §3.3's, so only Estimator with a measurement is an error here.
  if (prov === 'Estimator' && has('measured_uj')) errors.push('§3.3 Estimator with measured_uj (no measurement may be implied)');
  if (prov === 'ModelBased' && has('measured_uj')) warnings.push('§6.1 measured_uj with ModelBased: §6.1 says present iff HwShunt, §3.3 allows it');
  const energy = has('measured_uj') && isUint(get('measured_uj')) ? big(get('measured_uj')) : n('estimated_uj');

  // §3.6 decision vs generation; §6.2 wedge metrics.
  const decisionKeys = DECISION.filter(has);
  const isDecision = decisionKeys.length > 0;
  if (isDecision && decisionKeys.length !== DECISION.length) errors.push('§6.1 ' + DECISION.join(', ') + ' come together; only ' + decisionKeys.join(', ') + ' present');
  for (const k of decisionKeys) requireUint(k, '§3.6');
  const per = (k, denom, sec, required, sev) => {
    if (energy === null || denom === null) return;
    if (denom === 0n) {
      if (has(k)) errors.push(sec + ' ' + k + ' present with a zero denominator');
      return;
    }
    const want = energy / denom;
    if (!has(k)) {
      if (required) (sev === 'warn' ? warnings : errors).push(sec + ' ' + k + ' is missing (want ' + want + ')');
    } else if (!isUint(get(k))) errors.push(sec + ' ' + k + ' is not an unsigned integer');
    else if (big(get(k)) !== want) errors.push(sec + ' ' + k + ' is ' + get(k) + ', energy ' + energy + ' / ' + denom + ' = ' + want + ' (floor)');
  };
  if (!isDecision) {
    per('uj_per_accepted_token', n('tokens_accepted'), '§6.2', true);
    for (const k of ['uj_per_decision', 'uj_per_option_scored']) if (has(k)) errors.push('§6.1 ' + k + ' on a generation');
    if (!has('output_commitment')) warnings.push('§6.4 generation carries no output_commitment (only receipts sealed before the field existed may omit it)');
  } else {
    if (has('uj_per_accepted_token')) warnings.push('§6.1 uj_per_accepted_token on a typed decision');
    per('uj_per_accepted_token', n('tokens_accepted'), '§6.2', false);
    if (n('questions_answered') === 0n) errors.push('§3.6 decision answered no question: uj_per_decision is undefined');
    // §3.6: every question has at least one option (a proposition two, a choice 1-255, a rubric its
    // levels), so the options scored across them are at least the questions.
    if (n('options_scored') !== null && n('questions_answered') !== null && n('options_scored') < n('questions_answered')) {
      errors.push('§3.6 options_scored ' + get('options_scored') + ' below questions_answered ' + get('questions_answered'));
    }
    per('uj_per_decision', n('questions_answered'), '§3.6', true);
    per('uj_per_option_scored', n('options_scored'), '§3.6', true, 'warn');
    if (has('output_commitment')) errors.push('§6.1 output_commitment on a typed decision');
    if (n('schema_tokens') !== null && n('tokens_in') !== null && n('schema_tokens') > n('tokens_in')) {
      warnings.push('§3.6 schema_tokens ' + get('schema_tokens') + ' exceeds tokens_in ' + get('tokens_in'));
    }
  }
  optHex('output_commitment', '§6.1');

  // §2 / §6.1 grant breach.
  if (has('grant_breach')) {
    if (typeof get('grant_breach') !== 'string') errors.push('§6.1 grant_breach is not text');
    else if (!DENIALS.includes(get('grant_breach'))) warnings.push('§6.1 grant_breach ' + JSON.stringify(get('grant_breach')) + ' is not a listed JCP denial label');
    if (!has('grant_id')) errors.push('§6.1 grant_breach on a receipt that debited no grant');
  }

  // §6.3 chain position.
  requireUint('sequence', '§6.3');
  if (isUint(get('sequence'))) {
    if (big(get('sequence')) === 0n && has('prev')) errors.push('§6.3 genesis receipt (sequence 0) carries prev');
    if (big(get('sequence')) > 0n && !has('prev')) errors.push('§6.3 sequence ' + get('sequence') + ' without prev');
  }
  optHex('prev', '§6.3');
  if (!has('nonce')) errors.push('§6.1 nonce is missing');
  else if (!(get('nonce') instanceof Uint8Array) && typeof get('nonce') !== 'string') errors.push('§6.1 nonce is neither bytes nor text');
}

module.exports = { verifyEnvelope, contentId, isUint };
