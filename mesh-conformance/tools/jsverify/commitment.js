'use strict';
// §6.4 output commitment, checkable by a holder once the steward discloses the opening and the
// payload digest (or the prompt token ids) together with the output token ids.
const blake3 = require('./blake3');

function u32le(ids) {
  const b = Buffer.alloc(4 * ids.length);
  ids.forEach((id, i) => b.writeUInt32LE(id, 4 * i));
  return b;
}

function payloadDigest(promptIds) {
  return Buffer.from(blake3.hash(Buffer.concat([Buffer.from('mesh/1 prompt payload\0', 'latin1'), u32le(promptIds)])));
}

function commitment(opening, requestId, payload, tokenIds) {
  return Buffer.from(blake3.hash(Buffer.concat([
    Buffer.from('mesh/1 output commitment\0', 'latin1'), opening, requestId, payload, u32le(tokenIds),
  ])));
}

function hex32(s, what) {
  if (typeof s !== 'string' || !/^[0-9a-f]{64}$/i.test(s)) throw new Error(what + ' is not 32 bytes of hex');
  return Buffer.from(s, 'hex');
}

// disclosure: {opening, payload?|prompt?, tokens}. Returns a list of problems (empty = opens).
function checkDisclosure(core, d) {
  const problems = [];
  if (!core.has('output_commitment')) return ['§6.4 receipt commits to no output'];
  try {
    const opening = hex32(d.opening, 'opening');
    let payload = d.payload !== undefined ? hex32(d.payload, 'payload') : null;
    if (d.prompt !== undefined) {
      const fromPrompt = payloadDigest(d.prompt);
      if (payload !== null && !payload.equals(fromPrompt)) problems.push('§6.4 payload does not match the disclosed prompt');
      payload = fromPrompt;
    }
    if (payload === null) return ['§6.4 disclosure has neither payload nor prompt'];
    const want = commitment(opening, hex32(core.get('request_id'), 'request_id'), payload, d.tokens);
    if (want.toString('hex') !== core.get('output_commitment')) problems.push('§6.4 disclosed output does not open output_commitment');
  } catch (e) {
    problems.push('§6.4 disclosure: ' + e.message);
  }
  return problems;
}

module.exports = { payloadDigest, commitment, checkDisclosure, u32le };
