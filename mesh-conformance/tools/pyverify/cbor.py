"""Strict canonical-CBOR decoder/encoder for the mesh/1 value model (RFC 8949 §4.2.1 core deterministic,
no major type 7, integers limited to the signed 64-bit range as SPEC 10.1.4 chooses)."""

class CborError(Exception):
    def __init__(self, rule, offset):
        super().__init__(f"{rule} at {offset}")
        self.rule, self.offset = rule, offset

class Tag:
    def __init__(self, n, v): self.n, self.v = n, v
    def __eq__(self, o): return isinstance(o, Tag) and o.n == self.n and o.v == self.v
    def __repr__(self): return f"Tag({self.n},{self.v!r})"

class Map:
    """Ordered list of (key, value) pairs, as decoded."""
    def __init__(self, items): self.items = list(items)
    def get(self, k, d=None):
        for kk, v in self.items:
            if kk == k and type(kk) is type(k): return v
        return d
    def keys(self): return [k for k, _ in self.items]
    def __contains__(self, k): return any(kk == k and type(kk) is type(k) for kk, _ in self.items)
    def __eq__(self, o): return isinstance(o, Map) and o.items == self.items
    def __repr__(self): return "Map(%r)" % (self.items,)

MAX_I = (1 << 63) - 1

def decode(data, depth_limit=32):
    data = bytes(data)
    if len(data) == 0: raise CborError("TRUNCATED", 0)
    pos = [0]

    def head():
        p = pos[0]
        if p >= len(data): raise CborError("TRUNCATED", len(data))
        ib = data[p]; mt, ai = ib >> 5, ib & 31
        if mt == 7: raise CborError("FORBIDDEN_SIMPLE", p)
        if ai == 31: raise CborError("INDEFINITE_LENGTH", p)
        if ai in (28, 29, 30): raise CborError("RESERVED_ADDITIONAL_INFO", p)
        if ai < 24: pos[0] = p + 1; return mt, ai, p
        n = {24: 1, 25: 2, 26: 4, 27: 8}[ai]
        if p + 1 + n > len(data): raise CborError("TRUNCATED", p + 1)
        arg = int.from_bytes(data[p + 1:p + 1 + n], "big")
        lo = {1: 24, 2: 256, 4: 65536, 8: 1 << 32}[n]
        if arg < lo: raise CborError("NON_SHORTEST", p)
        pos[0] = p + 1 + n
        return mt, arg, p

    def item(depth):
        if depth > depth_limit: raise CborError("TOO_DEEP", pos[0])
        mt, arg, p = head()
        if mt == 0:
            if arg > MAX_I: raise CborError("INTEGER_RANGE", p)
            return arg
        if mt == 1:
            if arg > MAX_I: raise CborError("INTEGER_RANGE", p)
            return -1 - arg
        if mt in (2, 3):
            if arg > len(data) - pos[0]: raise CborError("LENGTH_LIMIT", p)
            b = data[pos[0]:pos[0] + arg]; pos[0] += arg
            if mt == 2: return b
            try:
                return b.decode("utf-8", errors="strict")
            except UnicodeDecodeError:
                raise CborError("INVALID_UTF8", p)
        if mt == 4:
            if arg > len(data) - pos[0]: raise CborError("LENGTH_LIMIT", p)
            return [item(depth + 1) for _ in range(arg)]
        if mt == 5:
            if arg * 2 > len(data) - pos[0]: raise CborError("LENGTH_LIMIT", p)
            items = []; prev = None
            for _ in range(arg):
                ks = pos[0]; k = item(depth + 1); kb = data[ks:pos[0]]
                if prev is not None:
                    if kb == prev: raise CborError("DUPLICATE_KEY", ks)
                    if kb < prev: raise CborError("UNSORTED_KEYS", ks)
                prev = kb
                items.append((k, item(depth + 1)))
            return Map(items)
        if mt == 6:
            if arg > MAX_I: raise CborError("INTEGER_RANGE", p)
            return Tag(arg, item(depth + 1))
    v = item(1)
    if pos[0] != len(data): raise CborError("TRAILING_BYTES", pos[0])
    return v

def _head(mt, n):
    if n < 24: return bytes([mt << 5 | n])
    for ai, w in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < (1 << (8 * w)): return bytes([mt << 5 | ai]) + n.to_bytes(w, "big")
    raise ValueError(n)

def encode(v):
    if isinstance(v, bool): raise ValueError("bool")
    if isinstance(v, int): return _head(0, v) if v >= 0 else _head(1, -1 - v)
    if isinstance(v, (bytes, bytearray)): return _head(2, len(v)) + bytes(v)
    if isinstance(v, str): b = v.encode(); return _head(3, len(b)) + b
    if isinstance(v, list): return _head(4, len(v)) + b"".join(encode(x) for x in v)
    if isinstance(v, Tag): return _head(6, v.n) + encode(v.v)
    if isinstance(v, dict): v = Map(v.items())
    if isinstance(v, Map):
        es = sorted((encode(k), encode(x)) for k, x in v.items)
        return _head(5, len(es)) + b"".join(k + x for k, x in es)
    raise ValueError(type(v))
