"""did:key for Ed25519 and strict Ed25519 verification (RFC 8032 §5.1; S < L; valid, not small-order keys)."""
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey, Ed25519PrivateKey
from cryptography.exceptions import InvalidSignature

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P

def b58dec(s):
    n = 0
    for c in s:
        i = B58.find(c)
        if i < 0: raise ValueError(f"not base58btc: {c!r}")
        n = n * 58 + i
    b = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return b"\0" * (len(s) - len(s.lstrip("1"))) + b

def b58enc(b):
    n = int.from_bytes(b, "big"); s = ""
    while n: n, r = divmod(n, 58); s = B58[r] + s
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + s

def _decompress(k):
    y = int.from_bytes(k, "little") & ((1 << 255) - 1); sign = k[31] >> 7
    if y >= P: return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P: x = x * pow(2, (P - 1) // 4, P) % P
    if (x * x - x2) % P: return None
    if x == 0 and sign: return None
    if x & 1 != sign: x = P - x
    return (x, y)

def _add(a, b):
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)

def valid_key(k):
    if len(k) != 32: return False
    pt = _decompress(k)
    if pt is None: return False
    q = pt
    for _ in range(3): q = _add(q, q)
    return q != (0, 1)

def did_key_to_pub(did):
    """Returns the 32-byte key of a canonical Ed25519 did:key, or raises ValueError."""
    if not isinstance(did, str) or not did.startswith("did:key:z"): raise ValueError("not did:key:z")
    raw = b58dec(did[9:])
    if len(raw) != 34 or raw[:2] != b"\xed\x01": raise ValueError("not an Ed25519 multicodec key")
    if not valid_key(raw[2:]): raise ValueError("invalid Ed25519 key")
    if pub_to_did_key(raw[2:]) != did: raise ValueError("not canonical")
    return raw[2:]

def pub_to_did_key(pub):
    return "did:key:z" + b58enc(b"\xed\x01" + pub)

def verify(pub, sig, msg):
    if len(sig) != 64 or not valid_key(pub): return False
    if int.from_bytes(sig[32:], "little") >= L: return False
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg); return True
    except InvalidSignature:
        return False

def seed_pub(seed):
    from cryptography.hazmat.primitives import serialization as s
    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)

def sign(seed, msg):
    return Ed25519PrivateKey.from_private_bytes(seed).sign(msg)
