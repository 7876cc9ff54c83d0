"""Pure-Python BLAKE3 (hash, keyed_hash, derive_key), written from the BLAKE3 paper; slow but enough."""
import struct
IV = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19]
PERM = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]
CHUNK_START, CHUNK_END, PARENT, ROOT, KEYED_HASH, DERIVE_KEY_CONTEXT, DERIVE_KEY_MATERIAL = 1, 2, 4, 8, 16, 32, 64
M32 = 0xFFFFFFFF

def _rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & M32

def _g(s, a, b, c, d, x, y):
    s[a] = (s[a] + s[b] + x) & M32; s[d] = _rotr(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & M32; s[b] = _rotr(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b] + y) & M32; s[d] = _rotr(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & M32; s[b] = _rotr(s[b] ^ s[c], 7)

def _compress(cv, block, counter, blen, flags):
    m = list(struct.unpack("<16I", block))
    s = list(cv) + IV[:4] + [counter & M32, (counter >> 32) & M32, blen, flags]
    for r in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1]); _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5]); _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9]); _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13]); _g(s, 3, 4, 9, 14, m[14], m[15])
        if r < 6:
            m = [m[i] for i in PERM]
    for i in range(8):
        s[i] ^= s[i + 8]
        s[i + 8] ^= cv[i]
    return s

class _Out:
    def __init__(self, cv, block, counter, blen, flags):
        self.cv, self.block, self.counter, self.blen, self.flags = cv, block, counter, blen, flags
    def chaining(self):
        return _compress(self.cv, self.block, self.counter, self.blen, self.flags)[:8]
    def root(self, n):
        out = b""; c = 0
        while len(out) < n:
            w = _compress(self.cv, self.block, c, self.blen, self.flags | ROOT)
            out += struct.pack("<16I", *w); c += 1
        return out[:n]

def _chunk_output(key, chunk, counter, flags):
    cv = list(key)
    blocks = [chunk[i:i + 64] for i in range(0, len(chunk), 64)] or [b""]
    for i, b in enumerate(blocks):
        f = flags | (CHUNK_START if i == 0 else 0)
        if i == len(blocks) - 1:
            return _Out(cv, b.ljust(64, b"\0"), counter, len(b), f | CHUNK_END)
        cv = _compress(cv, b, counter, 64, f)[:8]

def _parent(key, l, r, flags):
    return _Out(list(key), struct.pack("<8I", *l) + struct.pack("<8I", *r), 0, 64, flags | PARENT)

def _hash(data, key, flags, n=32):
    chunks = [data[i:i + 1024] for i in range(0, len(data), 1024)] or [b""]
    stack = []
    for i, ch in enumerate(chunks):
        out = _chunk_output(key, ch, i, flags)
        if i == len(chunks) - 1:
            break
        cv = out.chaining(); total = i + 1
        while total & 1 == 0:
            cv = _parent(key, stack.pop(), cv, flags).chaining(); total >>= 1
        stack.append(cv)
    while stack:
        out = _parent(key, stack.pop(), out.chaining(), flags)
    return out.root(n)

def blake3(data, n=32):
    return _hash(bytes(data), IV, 0, n)

def keyed_hash(key, data):
    return _hash(bytes(data), list(struct.unpack("<8I", key)), KEYED_HASH)

def derive_key(context, material):
    ck = _hash(context.encode(), IV, DERIVE_KEY_CONTEXT)
    return _hash(bytes(material), list(struct.unpack("<8I", ck)), DERIVE_KEY_MATERIAL)
