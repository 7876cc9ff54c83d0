'use strict';
// A strict CBOR reader and a deterministic writer (RFC 8949 §4.2.1, "core deterministic").
// The reader refuses, with the byte offset, anything a deterministic encoder cannot produce:
// non-shortest heads, indefinite lengths, unsorted or duplicate map keys, trailing bytes.
// Floats, booleans, null and undefined are returned as Simple values so that the caller can
// refuse them where the profile forbids them (mesh-1 §6) and still report every problem.

class CborError extends Error {}

class Simple {
  constructor(kind, value) {
    this.kind = kind; // 'false' | 'true' | 'null' | 'undefined' | 'float' | 'simple'
    this.value = value;
  }
}

class Tagged {
  constructor(tag, value) {
    this.tag = tag;
    this.value = value;
  }
}

function decode(bytes) {
  const buf = Buffer.from(bytes);
  let pos = 0;

  function need(n) {
    if (pos + n > buf.length) throw new CborError('truncated at byte ' + pos);
  }

  function head() {
    const start = pos;
    need(1);
    const ib = buf[pos++];
    const major = ib >> 5;
    const ai = ib & 31;
    let arg;
    if (ai < 24) arg = BigInt(ai);
    else if (ai <= 27) {
      const n = 1 << (ai - 24);
      need(n);
      arg = 0n;
      for (let i = 0; i < n; i++) arg = (arg << 8n) | BigInt(buf[pos++]);
      if (major !== 7) {
        const min = [24n, 0x100n, 0x10000n, 0x100000000n][ai - 24];
        if (arg < min) throw new CborError('non-shortest head at byte ' + start);
      }
    } else if (ai === 31) throw new CborError('indefinite length at byte ' + start);
    else throw new CborError('reserved additional info ' + ai + ' at byte ' + start);
    return { major, ai, arg, start };
  }

  function num(b) {
    return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
  }

  function item() {
    const h = head();
    switch (h.major) {
      case 0:
        return num(h.arg);
      case 1:
        return num(-1n - h.arg);
      case 2:
      case 3: {
        const n = Number(h.arg);
        need(n);
        const raw = buf.subarray(pos, pos + n);
        pos += n;
        if (h.major === 2) return Uint8Array.from(raw);
        const s = raw.toString('utf8');
        if (!Buffer.from(s, 'utf8').equals(raw)) throw new CborError('invalid UTF-8 text at byte ' + h.start);
        return s;
      }
      case 4: {
        const a = [];
        for (let i = 0n; i < h.arg; i++) a.push(item());
        return a;
      }
      case 5: {
        const m = new Map();
        let prevKey = null;
        for (let i = 0n; i < h.arg; i++) {
          const ks = pos;
          const k = item();
          const kb = buf.subarray(ks, pos);
          if (prevKey !== null) {
            const c = Buffer.compare(prevKey, kb);
            if (c === 0) throw new CborError('duplicate map key ' + JSON.stringify(String(k)) + ' at byte ' + ks);
            if (c > 0) throw new CborError('map keys not in bytewise order at key ' + JSON.stringify(String(k)) + ' (byte ' + ks + ')');
          }
          prevKey = kb;
          m.set(k, item());
        }
        return m;
      }
      case 6:
        return new Tagged(num(h.arg), item());
      default: {
        if (h.ai === 20) return new Simple('false', false);
        if (h.ai === 21) return new Simple('true', true);
        if (h.ai === 22) return new Simple('null', null);
        if (h.ai === 23) return new Simple('undefined', undefined);
        if (h.ai >= 25 && h.ai <= 27) return new Simple('float', h.arg);
        return new Simple('simple', Number(h.arg));
      }
    }
  }

  const value = item();
  if (pos !== buf.length) throw new CborError('trailing bytes after item: ' + (buf.length - pos));
  return value;
}

function encodeHead(major, n) {
  const b = BigInt(n);
  const m = major << 5;
  if (b < 24n) return Buffer.from([m | Number(b)]);
  if (b < 0x100n) return Buffer.from([m | 24, Number(b)]);
  if (b < 0x10000n) {
    const x = Buffer.alloc(3);
    x[0] = m | 25;
    x.writeUInt16BE(Number(b), 1);
    return x;
  }
  if (b < 0x100000000n) {
    const x = Buffer.alloc(5);
    x[0] = m | 26;
    x.writeUInt32BE(Number(b), 1);
    return x;
  }
  const x = Buffer.alloc(9);
  x[0] = m | 27;
  x.writeBigUInt64BE(b, 1);
  return x;
}

// Encodes numbers/BigInts (integers only), strings, Uint8Arrays, arrays, Maps and plain objects.
// Map keys are sorted by their encodings, as §4.2.1 requires.
function encode(v) {
  if (typeof v === 'number' || typeof v === 'bigint') {
    if (typeof v === 'number' && !Number.isInteger(v)) throw new CborError('floats are not encoded');
    const b = BigInt(v);
    return b >= 0n ? encodeHead(0, b) : encodeHead(1, -1n - b);
  }
  if (typeof v === 'string') {
    const s = Buffer.from(v, 'utf8');
    return Buffer.concat([encodeHead(3, s.length), s]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([encodeHead(2, v.length), Buffer.from(v)]);
  if (Array.isArray(v)) return Buffer.concat([encodeHead(4, v.length), ...v.map(encode)]);
  if (v instanceof Tagged) return Buffer.concat([encodeHead(6, v.tag), encode(v.value)]);
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  const enc = entries.map(([k, x]) => [encode(k), encode(x)]).sort((a, b) => Buffer.compare(a[0], b[0]));
  return Buffer.concat([encodeHead(5, enc.length), ...enc.flat()]);
}

// Decodes bytes that must hold one map; on failure records why under the name `what` and
// returns null.
function decodeMap(bytes, what, problems) {
  let v;
  try {
    v = decode(bytes);
  } catch (e) {
    problems.push(what + ' is not deterministic CBOR: ' + e.message);
    return null;
  }
  if (!(v instanceof Map)) {
    problems.push(what + ' is not a map');
    return null;
  }
  return v;
}

module.exports = { decode, decodeMap, encode, CborError, Simple, Tagged };
