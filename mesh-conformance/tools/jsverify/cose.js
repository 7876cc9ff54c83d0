'use strict';
// COSE_Sign1 (RFC 9052 §4.2, §4.4) as JCR-1 uses it (mesh-1 §6): EdDSA with Ed25519 only.
const cbor = require('./cbor');
const { verifyEd25519 } = require('./didkey');

const ALG = 1;
const KID = 4;
const EDDSA = -8;
const SIGN1_TAG = 18;

// Splits an envelope into its parts, refusing what is not a COSE_Sign1. Problems go to `problems`;
// returns null when the envelope cannot be read at all.
function parseSign1(bytes, problems) {
  let top;
  try {
    top = cbor.decode(bytes);
  } catch (e) {
    problems.push('envelope: not deterministic CBOR: ' + e.message);
    return null;
  }
  let tagged = false;
  if (top instanceof cbor.Tagged) {
    if (top.tag !== SIGN1_TAG) {
      problems.push('envelope: CBOR tag ' + top.tag + ' is not COSE_Sign1 (18)');
      return null;
    }
    tagged = true;
    top = top.value;
  }
  if (!Array.isArray(top) || top.length !== 4) {
    problems.push('envelope: not a 4-element COSE_Sign1 array');
    return null;
  }
  const [protectedBytes, unprotected, payload, signature] = top;
  if (!(protectedBytes instanceof Uint8Array)) problems.push('envelope: protected header is not a byte string');
  if (!(unprotected instanceof Map)) problems.push('envelope: unprotected header is not a map');
  if (!(payload instanceof Uint8Array)) problems.push('envelope: payload is not an attached byte string');
  if (!(signature instanceof Uint8Array)) problems.push('envelope: signature is not a byte string');
  if (problems.length > 0) return null;
  const prot = protectedBytes.length === 0 ? new Map() : cbor.decodeMap(protectedBytes, 'envelope: protected header', problems);
  if (prot === null) return null;
  return { tagged, protectedBytes, protected: prot, unprotected, payload, signature };
}

function toBeSigned(env, externalAad = new Uint8Array(0)) {
  return cbor.encode(['Signature1', env.protectedBytes, externalAad, env.payload]);
}

// The JCR-1 rules on top of COSE: alg -8 in the protected header, signature verified with the key.
function checkJcr1(env, publicKey, problems) {
  const alg = env.protected.get(ALG);
  if (alg !== EDDSA) {
    problems.push('envelope: protected alg is ' + JSON.stringify(alg) + ', JCR-1 requires EdDSA (-8)');
    return false;
  }
  if (env.unprotected.has(ALG)) problems.push('envelope: alg repeated in the unprotected header');
  if (publicKey.length !== 32) {
    problems.push('envelope: key is not a 32-byte Ed25519 key');
    return false;
  }
  if (!verifyEd25519(publicKey, toBeSigned(env), env.signature)) {
    problems.push('envelope: Ed25519 signature does not verify');
    return false;
  }
  return true;
}

function kidOf(env) {
  return env.protected.has(KID) ? env.protected.get(KID) : env.unprotected.get(KID);
}

module.exports = { parseSign1, toBeSigned, checkJcr1, kidOf, ALG, KID, EDDSA };
