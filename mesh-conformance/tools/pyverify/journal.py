"""Independent check of a mesh-java journal file (SPEC 60.2, 60.3 chain parts, SPEC 65 checkpoints and seals)
and of a snapshot file (SPEC 60.8 encoding and signature). No grant replay (JCP gate) is done here."""
import json, re, hashlib
from blake3py import blake3
import keys, tlog
from receipt import open_envelope, Refused
from cbor import decode, Map, CborError

ORDER = {
    "Chain": ["type", "id", "chain"],
    "Authorised": ["type", "chain", "caller", "nonce", "signature", "request", "model", "backend", "decided_at_ms"],
    "Debited": ["type", "authorised", "estimated_uj", "measured_uj", "provenance", "debited_uj", "breach"],
    "Sealed": ["type", "sequence", "envelope_id", "authorised", "envelope"],
    "Suspended": ["type", "sequence", "envelope_id", "envelope", "checkpoint"],
    "Resumed": ["type", "note"],
    "Revoked": ["type", "revocation"],
    "Checkpoint": ["type", "note", "seal"],
}
REQ = {"Chain": {"id", "chain"}, "Authorised": {"chain", "caller", "nonce", "signature", "request", "backend", "decided_at_ms"},
       "Debited": {"authorised", "estimated_uj", "provenance", "debited_uj"}, "Sealed": {"sequence", "envelope_id"},
       "Resumed": {"note"}, "Revoked": {"revocation"}, "Checkpoint": {"note", "seal"}, "Suspended": set()}

def _pairs(ps):
    ks = [k for k, _ in ps]
    if len(set(ks)) != len(ks): raise ValueError("duplicate key")
    return ps

def _enc(v):
    if isinstance(v, list) and (not v or isinstance(v[0], tuple)):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _enc(x) for k, x in v) + "}"
    if isinstance(v, bool) or v is None or isinstance(v, float): raise ValueError("non-int scalar")
    return json.dumps(v, ensure_ascii=False)

def verify_journal(path, steward_did):
    pub = keys.did_key_to_pub(steward_did)
    data = open(path, "rb").read()
    lines = data.split(b"\n")
    torn = lines.pop()  # after last LF
    out = {"records": 0, "torn": len(torn)}
    prev_hash = None; chains = set(); sealed_next = None; leaves = []; first = None
    last_cp_size = 0; sealed_auth = set(); debited = {}; kinds = {}; authorised = {}
    for n, line in enumerate(lines):
        where = f"record {n}"
        try:
            rec = json.loads(line.decode("utf-8"), object_pairs_hook=_pairs)
        except Exception as e:
            raise Refused("CORRUPT", f"{where}: {e}")
        try:
            exact = _enc(rec).encode() == line
        except ValueError as e:
            raise Refused("CORRUPT", f"{where}: {e}")
        if not exact: raise Refused("CORRUPT", f"{where}: not the exact encoding")
        d = dict(rec)
        ks = [k for k, _ in rec]
        if ks != (["seq", "entry"] if n == 0 else ["seq", "prev", "entry"]): raise Refused("CORRUPT", f"{where}: keys {ks}")
        if d["seq"] != n: raise Refused("CORRUPT", f"{where}: seq")
        if n > 0 and d["prev"] != prev_hash.hex(): raise Refused("CORRUPT", f"{where}: prev")
        e = d["entry"]; ek = [k for k, _ in e]; ed = dict(e); t = ed.get("type")
        if t not in ORDER: raise Refused("CORRUPT", f"{where}: type {t}")
        order = [k for k in ORDER[t] if k in ek]
        if order != ek or not REQ[t] <= set(ek): raise Refused("CORRUPT", f"{where}: entry keys {ek}")
        kinds[t] = kinds.get(t, 0) + 1
        if t == "Chain":
            if blake3(bytes.fromhex(ed["chain"])).hex() != ed["id"]: raise Refused("CORRUPT", f"{where}: chain id")
            chains.add(ed["id"])
        elif t == "Authorised":
            if ed["chain"] not in chains: raise Refused("CORRUPT", f"{where}: unknown chain")
            pres = (ed["chain"], ed["nonce"])
            authorised[n] = pres
        elif t == "Debited":
            if ed["authorised"] not in authorised or ed["authorised"] in debited: raise Refused("REPLAY_REFUSED", f"{where}: debit without open authorisation")
            debited[ed["authorised"]] = ed
        elif t == "Sealed":
            s = ed["sequence"]
            if ("authorised" in ed) != ("envelope" in ed): raise Refused("CORRUPT", f"{where}: authorised/envelope pair")
            if sealed_next is None:
                first = s
                if s != 0: raise Refused("REPLAY_REFUSED", f"{where}: first Sealed not 0")
            elif s != sealed_next: raise Refused("REPLAY_REFUSED", f"{where}: sequence")
            if "envelope" in ed:
                env = bytes.fromhex(ed["envelope"])
                if blake3(env).hex() != ed["envelope_id"]: raise Refused("CORRUPT", f"{where}: envelope id")
                r = open_envelope(env)
                if r["steward"] != steward_did or r["sequence"] != s: raise Refused("REPLAY_REFUSED", f"{where}: receipt")
                if s > 0 and r.get("prev") != leaves[-1].hex(): raise Refused("REPLAY_REFUSED", f"{where}: receipt prev")
                a = ed["authorised"]
                if a in sealed_auth or a not in debited: raise Refused("REPLAY_REFUSED", f"{where}: authorised")
                db = debited[a]
                for rk, dk in (("estimated_uj", "estimated_uj"), ("measured_uj", "measured_uj"), ("energy_provenance", "provenance"), ("grant_breach", "breach")):
                    if r.get(rk) != db.get(dk): raise Refused("REPLAY_REFUSED", f"{where}: {rk} differs from debit")
                if db["debited_uj"] != r.get("measured_uj", r["estimated_uj"]): raise Refused("REPLAY_REFUSED", f"{where}: debited_uj")
                sealed_auth.add(a)
            sealed_next = s + 1
            leaves.append(bytes.fromhex(ed["envelope_id"]))
        elif t == "Checkpoint":
            if not re.fullmatch(r"[0-9a-f]{128}", ed["seal"]): raise Refused("CORRUPT", f"{where}: seal")
            size, root, _ = tlog.verify_checkpoint(ed["note"], steward_did)
            # SPEC 65: a steward never signs the empty tree, so its journal holds no checkpoint of size 0.
            if size == 0 or size > len(leaves) or size < last_cp_size: raise Refused("REPLAY_REFUSED", f"{where}: checkpoint size")
            if tlog.mth(leaves[:size]) != root: raise Refused("REPLAY_REFUSED", f"{where}: checkpoint root")
            ph = prev_hash if n > 0 else bytes(32)
            if not keys.verify(pub, bytes.fromhex(ed["seal"]), b"mesh/1 journal seal\0" + n.to_bytes(8, "big") + ph):
                raise Refused("REPLAY_REFUSED", f"{where}: journal seal")
            last_cp_size = size
        prev_hash = blake3(line)
        out["records"] = n + 1
    out.update(kinds=kinds, receipts=len(leaves), first=first, root=tlog.mth(leaves).hex(), last_hash=prev_hash.hex() if prev_hash else None)
    return out

SNAP_KEYS = ["format", "steward", "position", "ledger", "revocations", "suspension", "head", "receipts", "open", "settled",
             "checkpoint", "tree", "chains", "counts"]

def verify_snapshot(path, steward_did, journal_path=None):
    pub = keys.did_key_to_pub(steward_did)
    try:
        top = decode(open(path, "rb").read(), depth_limit=64)
    except CborError as e:
        raise Refused("MALFORMED", str(e))
    if not (isinstance(top, list) and len(top) == 2 and isinstance(top[0], bytes) and isinstance(top[1], bytes)):
        raise Refused("MALFORMED", "not [body, signature]")
    body, sig = top
    try:
        m = decode(body, depth_limit=64)
    except CborError as e:
        raise Refused("MALFORMED", "body " + str(e))
    if not isinstance(m, Map) or sorted(map(str, m.keys())) != sorted(SNAP_KEYS): raise Refused("MALFORMED", f"keys {m.keys() if isinstance(m, Map) else m}")
    if m.get("format") != 2: raise Refused("UNSUPPORTED_VERSION", str(m.get("format")))
    if m.get("steward") != steward_did: raise Refused("OTHER_STEWARD", m.get("steward"))
    if not keys.verify(pub, sig, b"mesh/1 journal snapshot\n" + hashlib.sha256(body).digest()): raise Refused("BAD_SIGNATURE")
    count, h, loc = m.get("position")
    first, ids = m.get("receipts")
    n = len(ids) // 32
    leaves = [ids[i * 32:(i + 1) * 32] for i in range(n)]
    tree = m.get("tree")
    if tree:
        if tree[:32 * n] != b"".join(tlog.leaf_hash(x) for x in leaves): raise Refused("MALFORMED", "tree level 0")
    cp = m.get("checkpoint")
    res = {"count": count, "receipts": n, "first": first, "tree_bytes": len(tree), "checkpoint": bool(cp)}
    if cp:
        size, root, _ = tlog.verify_checkpoint(cp, steward_did)
        if size > n or tlog.mth(leaves[:size]) != root: raise Refused("MALFORMED", "checkpoint not reproduced")
    if journal_path:
        lines = open(journal_path, "rb").read().split(b"\n")[:-1]
        if count > len(lines): raise Refused("AHEAD_OF_JOURNAL")
        if count > 0 and blake3(lines[count - 1]) != h: raise Refused("NOT_IN_JOURNAL")
    return res
