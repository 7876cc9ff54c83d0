"""mesh/1 receipt (signed core, §6.1 and SPEC 20 §2), JCR-1 envelope (SPEC 20 §3), chain (§6.3),
output commitment (§6.4)."""
import re
from cbor import decode, encode, CborError, Map, Tag
from blake3py import blake3
import keys

class Refused(Exception):
    def __init__(self, reason, detail=""):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail

U32 = (1 << 32) - 1
HEX64 = re.compile(r"^[0-9a-f]{64}$")
TEXT = {"mesh_receipt", "request_id", "grant_id", "backend", "recipe", "weights_digest", "precision", "route",
        "energy_provenance", "grant_breach", "output_commitment", "prev", "steward"}
COUNTERS = {"tokens_in", "tokens_out", "tokens_accepted", "cache_hit_tokens", "spec_proposed", "spec_accepted",
            "questions_answered", "options_scored", "schema_tokens"}
UINTS = COUNTERS | {"fidelity_floor", "fidelity_advertised", "fidelity_delivered", "fidelity_met", "estimated_uj",
                    "measured_uj", "uj_per_accepted_token", "uj_per_decision", "uj_per_option_scored", "sequence"}
REQUIRED = {"mesh_receipt", "request_id", "backend", "recipe", "route", "tokens_in", "tokens_out", "tokens_accepted",
            "cache_hit_tokens", "spec_proposed", "spec_accepted", "fidelity_floor", "fidelity_met", "estimated_uj",
            "energy_provenance", "sequence", "nonce", "steward"}
ALL = TEXT | UINTS | {"nonce"}

def check_core(core):
    """Raises Refused(MALFORMED_RECEIPT|INCONSISTENT_RECEIPT) or returns the core as a dict."""
    M = lambda d: Refused("MALFORMED_RECEIPT", d)
    I = lambda d: Refused("INCONSISTENT_RECEIPT", d)
    if not isinstance(core, Map): raise M("not a map")
    r = {}
    for k, v in core.items:
        if not isinstance(k, str): raise M("non-text key")
        if k not in ALL: raise M(f"unknown key {k}")
        r[k] = v
    for k in REQUIRED:
        if k not in r: raise M(f"missing {k}")
    for k, v in r.items():
        if k in TEXT and not isinstance(v, str): raise M(f"{k} not text")
        if k in UINTS and (not isinstance(v, int) or v < 0): raise M(f"{k} not uint")
        if k in COUNTERS and v > U32: raise M(f"{k} above u32")
    if not isinstance(r["nonce"], bytes) or len(r["nonce"]) != 16: raise M("nonce not 16 bytes")
    for k in ("fidelity_floor", "fidelity_advertised", "fidelity_delivered"):
        if k in r and r[k] > 4: raise M(f"{k} above 4")
    if r["fidelity_met"] not in (0, 1): raise M("fidelity_met not 0/1")
    if r["mesh_receipt"] != "mesh/1": raise M("mesh_receipt")
    if r["energy_provenance"] not in ("HwShunt", "ModelBased", "Estimator"): raise M("provenance")
    for k in ("request_id", "grant_id", "weights_digest", "output_commitment", "prev"):
        if k in r and not HEX64.match(r[k]): raise M(f"{k} not a content id")
    try:
        keys.did_key_to_pub(r["steward"])
    except ValueError as e:
        raise M(f"steward: {e}")
    for k in ("backend", "recipe", "route"):
        if "\r" in r[k] or "\n" in r[k]: raise M(f"{k} has CR/LF")   # SPEC 20 §2 lists these as constraints
    for k in ("backend", "recipe", "route"):
        if r[k] == "": raise M(f"{k} empty")   # SPEC 20 §2: each a non-empty single line
    if "precision" in r and not re.fullmatch(r"[a-z][a-z0-9_]{0,15}", r["precision"]): raise M("precision")
    # couplings
    if ("weights_digest" in r) != ("precision" in r): raise I("weights_digest/precision pair")
    if ("fidelity_advertised" in r) != ("fidelity_delivered" in r): raise I("fidelity pair")
    dec = [k in r for k in ("questions_answered", "options_scored", "schema_tokens")]
    if any(dec) and not all(dec): raise I("decision triple")
    decision = all(dec)
    if "fidelity_delivered" in r:
        if r["fidelity_delivered"] > r["fidelity_advertised"]: raise I("delivered above advertised")
        if r["fidelity_met"] != (1 if r["fidelity_delivered"] >= r["fidelity_floor"] else 0): raise I("fidelity_met")
    if r["spec_accepted"] > r["spec_proposed"]: raise I("spec_accepted > spec_proposed")
    prov = r["energy_provenance"]
    if prov == "HwShunt" and "measured_uj" not in r: raise I("HwShunt without measured")
    if prov == "Estimator" and "measured_uj" in r: raise I("Estimator with measured")
    E = r.get("measured_uj", r["estimated_uj"])
    if decision:
        if r["questions_answered"] < 1: raise M("questions_answered < 1")
        if r["options_scored"] < r["questions_answered"]: raise M("options < questions")
        if "uj_per_accepted_token" in r: raise I("wedge on decision")
        if r.get("uj_per_decision") != E // r["questions_answered"]: raise I("uj_per_decision")
        if "uj_per_option_scored" in r and r["uj_per_option_scored"] != E // r["options_scored"]: raise I("uj_per_option_scored")
        if "output_commitment" in r: raise I("commitment on decision")
    else:
        if "uj_per_decision" in r or "uj_per_option_scored" in r: raise I("decision figure on generation")
        if r["tokens_accepted"] > 0:
            if r.get("uj_per_accepted_token") != E // r["tokens_accepted"]: raise I("uj_per_accepted_token")
        elif "uj_per_accepted_token" in r: raise I("wedge with no tokens")
    if "grant_breach" in r:
        if "grant_id" not in r: raise I("breach without grant")
        if r["grant_breach"] not in ("caveat-unsatisfied", "budget-exhausted"): raise I("breach label")
    if (r["sequence"] == 0) == ("prev" in r): raise I("prev vs sequence")
    return r

def open_envelope(env):
    try:
        v = decode(env)
    except CborError as e:
        raise Refused("NOT_CANONICAL_CBOR", str(e))
    if not isinstance(v, Tag) or v.n != 18: raise Refused("WRONG_TAG")
    a = v.v
    if not (isinstance(a, list) and len(a) == 4 and isinstance(a[0], bytes) and isinstance(a[1], Map)
            and isinstance(a[2], bytes) and isinstance(a[3], bytes)): raise Refused("MALFORMED_ENVELOPE")
    try:
        ph = decode(a[0])
    except CborError as e:
        raise Refused("NOT_CANONICAL_CBOR", "protected: " + str(e))
    if not isinstance(ph, Map): raise Refused("MALFORMED_ENVELOPE", "protected not a map")
    if ph.get(1) != -8 or isinstance(ph.get(1), bool): raise Refused("UNSUPPORTED_ALGORITHM")
    if any(not (isinstance(k, int) and k in (1, 4)) for k in ph.keys()): raise Refused("UNEXPECTED_HEADER")
    kid = ph.get(4)
    if not isinstance(kid, bytes): raise Refused("BAD_KID")
    try:
        pub = keys.did_key_to_pub(kid.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise Refused("BAD_KID", str(e))
    if a[1].items: raise Refused("UNPROTECTED_NOT_EMPTY")
    sig_structure = encode(["Signature1", a[0], b"", a[2]])
    if not keys.verify(pub, a[3], sig_structure): raise Refused("BAD_SIGNATURE")
    try:
        core = decode(a[2])
    except CborError as e:
        raise Refused("NOT_CANONICAL_CBOR", "payload: " + str(e))
    r = check_core(core)
    if r["steward"] != kid.decode(): raise Refused("STEWARD_MISMATCH")
    return r

def verify_chain(envs, from_genesis=True):
    prev = None
    for i, env in enumerate(envs):
        try:
            r = open_envelope(env)
        except Refused as e:
            raise Refused(e.reason, f"at {i}: {e.detail}")
        if i == 0 and from_genesis and r["sequence"] != 0: raise Refused("BROKEN_CHAIN", "at 0: not genesis")
        if i > 0:
            pr, pe = prev
            if r["steward"] != pr["steward"] or r["sequence"] != pr["sequence"] + 1 or r.get("prev") != blake3(pe).hex():
                raise Refused("BROKEN_CHAIN", f"at {i}")
        prev = (r, env)
    return True

def le32(ids): return b"".join(i.to_bytes(4, "little") for i in ids)

def payload_digest(prompt_ids): return blake3(b"mesh/1 prompt payload\0" + le32(prompt_ids))

def commitment(opening, request_id, payload, out_ids):
    return blake3(b"mesh/1 output commitment\0" + opening + request_id + payload + le32(out_ids))
