'use strict';
// BLAKE3 (hash, keyed_hash, derive_key, extendable output), written from the BLAKE3 paper's
// reference design so the verifier needs no package. Checked against the official vectors by
// selftest.js. Speed is not a goal: artefacts are small.

const IV = Uint32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const PERM = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const CHUNK_START = 1, CHUNK_END = 2, PARENT = 4, ROOT = 8;
const KEYED_HASH = 16, DERIVE_KEY_CONTEXT = 32, DERIVE_KEY_MATERIAL = 64;
const BLOCK_LEN = 64, CHUNK_LEN = 1024;

function rotr(x, n) {
  return (x >>> n) | (x << (32 - n));
}

function g(s, a, b, c, d, x, y) {
  s[a] = (s[a] + s[b] + x) | 0;
  s[d] = rotr(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) | 0;
  s[b] = rotr(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b] + y) | 0;
  s[d] = rotr(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) | 0;
  s[b] = rotr(s[b] ^ s[c], 7);
}

// Returns the full 16-word state; the first 8 words are the chaining value.
function compress(cv, block, counter, blockLen, flags) {
  const s = new Uint32Array(16);
  s.set(cv.subarray(0, 8), 0);
  s.set(IV.subarray(0, 4), 8);
  s[12] = counter % 0x100000000;
  s[13] = Math.floor(counter / 0x100000000);
  s[14] = blockLen;
  s[15] = flags;
  let m = Uint32Array.from(block);
  for (let r = 0; r < 7; r++) {
    g(s, 0, 4, 8, 12, m[0], m[1]);
    g(s, 1, 5, 9, 13, m[2], m[3]);
    g(s, 2, 6, 10, 14, m[4], m[5]);
    g(s, 3, 7, 11, 15, m[6], m[7]);
    g(s, 0, 5, 10, 15, m[8], m[9]);
    g(s, 1, 6, 11, 12, m[10], m[11]);
    g(s, 2, 7, 8, 13, m[12], m[13]);
    g(s, 3, 4, 9, 14, m[14], m[15]);
    if (r < 6) m = Uint32Array.from(PERM, (p) => m[p]);
  }
  for (let i = 0; i < 8; i++) {
    s[i] ^= s[i + 8];
    s[i + 8] ^= cv[i];
  }
  return s;
}

function words(bytes) {
  const padded = new Uint8Array(BLOCK_LEN);
  padded.set(bytes);
  const w = new Uint32Array(16);
  for (let i = 0; i < 16; i++) {
    w[i] = padded[4 * i] | (padded[4 * i + 1] << 8) | (padded[4 * i + 2] << 16) | (padded[4 * i + 3] << 24);
  }
  return w;
}

// An "output" is what the root compression needs: it can be squeezed to any length.
function chunkOutput(key, chunk, counter, flags) {
  let cv = key;
  const blocks = Math.max(1, Math.ceil(chunk.length / BLOCK_LEN));
  for (let b = 0; b < blocks; b++) {
    const block = chunk.subarray(b * BLOCK_LEN, (b + 1) * BLOCK_LEN);
    let f = flags;
    if (b === 0) f |= CHUNK_START;
    if (b === blocks - 1) {
      f |= CHUNK_END;
      return { cv, block: words(block), counter, len: block.length, flags: f };
    }
    cv = compress(cv, words(block), counter, BLOCK_LEN, f).subarray(0, 8);
  }
  throw new Error('unreachable');
}

function parentOutput(key, left, right, flags) {
  const block = new Uint32Array(16);
  block.set(left, 0);
  block.set(right, 8);
  return { cv: key, block, counter: 0, len: BLOCK_LEN, flags: flags | PARENT };
}

function chainingValue(o) {
  return compress(o.cv, o.block, o.counter, o.len, o.flags).subarray(0, 8);
}

function rootBytes(o, outLen) {
  const out = new Uint8Array(outLen);
  let pos = 0;
  for (let counter = 0; pos < outLen; counter++) {
    const s = compress(o.cv, o.block, counter, o.len, o.flags | ROOT);
    for (let i = 0; i < 16 && pos < outLen; i++) {
      for (let k = 0; k < 4 && pos < outLen; k++) out[pos++] = (s[i] >>> (8 * k)) & 0xff;
    }
  }
  return out;
}

function hashWith(key, flags, input, outLen) {
  const data = Uint8Array.from(input);
  const chunks = Math.max(1, Math.ceil(data.length / CHUNK_LEN));
  // The tree is built as in the reference: a stack of subtree chaining values, merged whenever
  // the number of completed chunks has a trailing zero bit.
  const stack = [];
  for (let c = 0; c < chunks - 1; c++) {
    let cv = chainingValue(chunkOutput(key, data.subarray(c * CHUNK_LEN, (c + 1) * CHUNK_LEN), c, flags));
    let total = c + 1;
    while ((total & 1) === 0) {
      cv = chainingValue(parentOutput(key, stack.pop(), cv, flags));
      total >>= 1;
    }
    stack.push(cv);
  }
  let out = chunkOutput(key, data.subarray((chunks - 1) * CHUNK_LEN), chunks - 1, flags);
  while (stack.length > 0) out = parentOutput(key, stack.pop(), chainingValue(out), flags);
  return rootBytes(out, outLen);
}

function keyWords(key) {
  if (key.length !== 32) throw new Error('BLAKE3 key must be 32 bytes, got ' + key.length);
  return words(key).subarray(0, 8);
}

function hash(input, outLen = 32) {
  return hashWith(IV, 0, input, outLen);
}

function keyedHash(key, input, outLen = 32) {
  return hashWith(keyWords(key), KEYED_HASH, input, outLen);
}

function deriveKey(context, material, outLen = 32) {
  const ctxKey = hashWith(IV, DERIVE_KEY_CONTEXT, Buffer.from(context, 'utf8'), 32);
  return hashWith(keyWords(ctxKey), DERIVE_KEY_MATERIAL, material, outLen);
}

module.exports = { hash, keyedHash, deriveKey };
