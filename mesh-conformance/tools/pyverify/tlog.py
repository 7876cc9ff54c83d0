"""RFC 9162 §2.1 Merkle tree proofs, C2SP signed-note and tlog-checkpoint, as SPEC 65 adopts them."""
import base64, hashlib, re
import keys
from receipt import Refused

def sha(b): return hashlib.sha256(b).digest()
def leaf_hash(entry): return sha(b"\0" + entry)
def node(l, r): return sha(b"\1" + l + r)

def mth(leaves):
    n = len(leaves)
    if n == 0: return sha(b"")
    if n == 1: return leaf_hash(leaves[0])
    k = 1
    while k * 2 < n: k *= 2
    return node(mth(leaves[:k]), mth(leaves[k:]))

def _right_edge(fn, sn):
    """After hashing a left sibling: RFC 9162's 'right-shift fn and sn until fn's low bit is set
    or fn is 0' (the caller shifts once more)."""
    while not (fn & 1 or fn == 0):
        fn >>= 1; sn >>= 1
    return fn, sn

def verify_inclusion(index, size, lh, path, root):
    """RFC 9162 §2.1.3.2."""
    if index >= size: return False
    fn, sn, r = index, size - 1, lh
    for p in path:
        if sn == 0: return False
        if fn & 1 or fn == sn:
            r = node(p, r)
            if not fn & 1:
                fn, sn = _right_edge(fn >> 1, sn >> 1)
        else:
            r = node(r, p)
        fn >>= 1; sn >>= 1
    return sn == 0 and r == root

def verify_consistency(first, second, r1, r2, path):
    """RFC 9162 §2.1.4.2 (with equal sizes: empty path and equal roots)."""
    if first > second: return False
    if first == second: return path == [] and r1 == r2
    if first == 0: return False   # RFC 9162 proves nothing from the empty tree; refused
    path = list(path)
    if first & (first - 1) == 0: path = [r1] + path
    if not path: return False
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1; sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0: return False
        if fn & 1 or fn == sn:
            fr = node(c, fr); sr = node(c, sr)
            if not fn & 1:
                fn, sn = _right_edge(fn >> 1, sn >> 1)
        else:
            sr = node(sr, c)
        fn >>= 1; sn >>= 1
    return fr == r1 and sr == r2 and sn == 0

def key_hash(name, pub): return sha(name.encode() + b"\n\x01" + pub)[:4]

def valid_name(n):
    return n != "" and "+" not in n and not any(c.isspace() for c in n)

def open_note(text, name, pub):
    """Go note.Open semantics with one known key; returns (body, [other signature lines])."""
    if isinstance(text, bytes):
        try: text = text.decode("utf-8")
        except UnicodeDecodeError: raise Refused("MALFORMED_NOTE", "not UTF-8")
    for ch in text:
        if ord(ch) < 0x20 and ch != "\n": raise Refused("MALFORMED_NOTE", "control character")
    if not text.endswith("\n"): raise Refused("MALFORMED_NOTE", "no final newline")
    i = text.rfind("\n\n")
    if i < 0: raise Refused("MALFORMED_NOTE", "no signature block")
    body, sigs = text[:i + 1], text[i + 2:]
    seen, known_ok, others, n = set(), False, [], 0
    for line in sigs.split("\n")[:-1]:
        if not line.startswith("\u2014 "): raise Refused("MALFORMED_NOTE", "bad signature line")
        nm, _, b64 = line[2:].partition(" ")
        try:
            raw = base64.b64decode(b64, validate=True)
        except Exception:
            raise Refused("MALFORMED_NOTE", "bad base64")
        # One text per signature, as the Java verifier reads it: the unused low bits must be zero too.
        if base64.b64encode(raw).decode() != b64: raise Refused("MALFORMED_NOTE", "signature not canonical base64")
        if not valid_name(nm) or b64 == "" or len(raw) < 5: raise Refused("MALFORMED_NOTE", "bad signature")
        n += 1
        if n > 100: raise Refused("MALFORMED_NOTE", "too many signatures")
        if nm == name and raw[:4] == key_hash(name, pub):
            if (nm, raw[:4]) in seen: continue   # Go note.Open drops a repeated signature by one verifier
            seen.add((nm, raw[:4]))
            if not keys.verify(pub, raw[4:], body.encode()): raise Refused("BAD_SIGNATURE", "log key")
            known_ok = True
        else:
            others.append(line)
    if not known_ok: raise Refused("UNSIGNED", "no signature by the log key")
    return body, others

B64_32 = re.compile(r"^[A-Za-z0-9+/]{43}=$")

def parse_checkpoint(body):
    lines = body.split("\n")
    if len(lines) != 4 or lines[3] != "": raise Refused("MALFORMED_CHECKPOINT", "not three lines")
    origin, size, root = lines[:3]
    if not re.fullmatch(r"0|[1-9][0-9]*", size): raise Refused("MALFORMED_CHECKPOINT", "size")
    if int(size) > (1 << 63) - 1: raise Refused("MALFORMED_CHECKPOINT", "size past 2^63 - 1 (SPEC 65)")
    if not B64_32.match(root): raise Refused("MALFORMED_CHECKPOINT", "root")
    r = base64.b64decode(root, validate=True)
    if base64.b64encode(r).decode() != root: raise Refused("MALFORMED_CHECKPOINT", "root not canonical base64")
    return origin, int(size), r

def verify_checkpoint(text, steward_did):
    pub = keys.did_key_to_pub(steward_did)
    body, others = open_note(text, steward_did, pub)
    origin, size, root = parse_checkpoint(body)
    if origin != steward_did: raise Refused("WRONG_ORIGIN", origin)
    return size, root, others
