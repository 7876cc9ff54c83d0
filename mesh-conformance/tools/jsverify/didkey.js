'use strict';
// did:key for Ed25519 (jcp-profile "Identities"): "did:key:z" + base58btc(0xed 0x01 ‖ 32-byte key).
const crypto = require('crypto');

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(s) {
  let n = 0n;
  for (const ch of s) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) throw new Error('not base58btc: character ' + JSON.stringify(ch));
    n = n * 58n + BigInt(d);
  }
  const bytes = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const ch of s) {
    if (ch !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

function base58Encode(bytes) {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = '';
  while (n > 0n) {
    s = ALPHABET[Number(n % 58n)] + s;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    s = '1' + s;
  }
  return s;
}

// Returns the 32-byte Ed25519 public key a did:key names; throws a clear Error otherwise.
function publicKeyOf(did) {
  if (typeof did !== 'string' || !did.startsWith('did:key:z')) {
    throw new Error('not an Ed25519 did:key (want "did:key:z…"): ' + JSON.stringify(did));
  }
  const raw = base58Decode(did.slice('did:key:z'.length));
  if (raw.length !== 34 || raw[0] !== 0xed || raw[1] !== 0x01) {
    throw new Error('did:key does not hold multicodec 0xed01 + 32 bytes: ' + did);
  }
  const key = raw.subarray(2);
  if (base58Encode(raw) !== did.slice('did:key:z'.length)) throw new Error('did:key is not canonical base58btc: ' + did);
  return key;
}

function didOf(publicKey) {
  return 'did:key:z' + base58Encode(Uint8Array.from([0xed, 0x01, ...publicKey]));
}

function ed25519Key(raw) {
  // SPKI prefix for an Ed25519 public key (RFC 8410).
  const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(raw)]);
  return crypto.createPublicKey({ key: der, format: 'der', type: 'spki' });
}

function verifyEd25519(publicKey, message, signature) {
  if (signature.length !== 64) return false;
  return crypto.verify(null, Buffer.from(message), ed25519Key(publicKey), Buffer.from(signature));
}

module.exports = { publicKeyOf, didOf, verifyEd25519, base58Decode, base58Encode };
