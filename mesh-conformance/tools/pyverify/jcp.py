"""JCP grants, chains, caveats, presentations and the gate's decision, as SPEC 30 defines them
(mesh-1.md §2–§2.2, jcp-profile.md). Written from those texts alone, without reading mesh-java's code.

Every refusal is a Denied carrying a SPEC 30 §9 label; a shape error anywhere is `malformed`."""
import re
from cbor import CborError, Map, decode, encode
from keys import did_key_to_pub, verify
from blake3py import blake3

# SPEC 30 §2 [mesh-java]: the last whole second java.time.Instant holds; later times are malformed.
MAX_TIME_S = 31556889864403199
MAX_U = (1 << 63) - 1
ACTION = re.compile(r"[a-z][a-z0-9._:/-]{0,63}")
HEX_ID = re.compile(r"[0-9a-f]{64}")
GRANT_KEYS = {"issuer", "subject", "actions", "resources", "budget_uj", "not_before", "expiry", "caveats"}


class Denied(Exception):
    def __init__(self, label, detail="", link=None):
        super().__init__(f"{label}: {detail}" + ("" if link is None else f" (link {link})"))
        self.label, self.detail, self.link = label, detail, link


def _malformed(what):
    raise Denied("malformed", what)


def _uint(v, what):
    if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > MAX_U: _malformed(f"{what} is not a uint")
    return v


def _did(v, what):
    if not isinstance(v, str): _malformed(f"{what} is not text")
    try:
        return did_key_to_pub(v)
    except ValueError as e:
        _malformed(f"{what}: {e}")


def _hex_id(v, what):
    if not isinstance(v, str) or not HEX_ID.fullmatch(v): _malformed(f"{what} is not a hex id")
    return v


def _set(v, what, item, may_be_empty=False):
    """A CBOR array sorted by the bytes of each item's encoding, without repeats (SPEC 30 preamble)."""
    if not isinstance(v, list): _malformed(f"{what} is not an array")
    if not v and not may_be_empty: _malformed(f"{what} is empty")
    out = [item(x, what) for x in v]
    encs = [encode(x) for x in v]
    for a, b in zip(encs, encs[1:]):
        if a == b: _malformed(f"{what} repeats an item")
        if a > b: _malformed(f"{what} is out of order")
    return out


def _keys(m, required, optional, what):
    if not isinstance(m, Map): _malformed(f"{what} is not a map")
    ks = m.keys()
    if any(not isinstance(k, str) for k in ks): _malformed(f"{what} has a key that is not text")
    missing = required - set(ks); extra = set(ks) - required - optional
    if missing: _malformed(f"{what} lacks {sorted(missing)}")
    if extra: _malformed(f"{what} has unknown keys {sorted(extra)}")


class Caveat:
    def __init__(self, kind, value, raw):
        self.kind, self.value, self.raw = kind, value, raw  # raw: the decoded map, for identical copies

    @staticmethod
    def parse(m):
        if not isinstance(m, Map) or "caveat" not in m: _malformed("a caveat is not a map with the key caveat")
        kind = m.get("caveat")
        if not isinstance(kind, str): _malformed("a caveat's kind is not text")
        if kind == "ModelIn":
            _keys(m, {"caveat", "weights"}, set(), "ModelIn")
            return Caveat(kind, frozenset(_set(m.get("weights"), "ModelIn weights", _hex_id)), m)
        if kind == "MaxCostUj":
            _keys(m, {"caveat", "uj"}, set(), "MaxCostUj")
            return Caveat(kind, _uint(m.get("uj"), "MaxCostUj uj"), m)
        # SPEC 30 §3: any other kind is kept as decoded, whatever its other keys and values (its shape is
        # unknown too); the gate refuses it (fail closed).
        return Caveat(kind, None, m)

    @property
    def known(self): return self.kind in ("ModelIn", "MaxCostUj")


class Grant:
    def __init__(self, m):
        _keys(m, GRANT_KEYS, {"parent"}, "grant")
        self.issuer = m.get("issuer"); self.issuer_key = _did(self.issuer, "issuer")
        self.subject = m.get("subject"); _did(self.subject, "subject")

        def action(a, what):
            if not isinstance(a, str) or not ACTION.fullmatch(a): _malformed(f"{what}: {a!r} is not an action")
            return a
        self.actions = frozenset(_set(m.get("actions"), "actions", action))
        r = m.get("resources")
        self.resources = None if r == "*" else frozenset(_set(r, "resources", _hex_id))  # None: every request
        self.budget_uj = _uint(m.get("budget_uj"), "budget_uj")
        self.not_before = _uint(m.get("not_before"), "not_before")
        self.expiry = _uint(m.get("expiry"), "expiry")
        for k in ("not_before", "expiry"):
            if getattr(self, k) > MAX_TIME_S: _malformed(f"{k} is past the last time mesh-java holds")
        if self.expiry <= self.not_before: _malformed("expiry is not after not_before")
        self.caveats = _set(m.get("caveats"), "caveats", lambda c, _w: Caveat.parse(c), may_be_empty=True)
        self.parent = _hex_id(m.get("parent"), "parent") if "parent" in m else None
        self.map = m


class SignedGrant:
    def __init__(self, m):
        _keys(m, {"grant", "signature"}, set(), "signed grant")
        self.grant = Grant(m.get("grant"))
        self.signature = m.get("signature")
        if not isinstance(self.signature, bytes) or len(self.signature) != 64: _malformed("signature is not 64 bytes")
        self.id = blake3(encode(m)).hex()  # SPEC 30 §4: over the whole signed-grant map
        self.signed_bytes = encode(self.grant.map)

    def signature_ok(self):
        return verify(self.grant.issuer_key, self.signature, self.signed_bytes)


def parse_chain(v):
    if not isinstance(v, list) or not 1 <= len(v) <= 16: _malformed("a chain is an array of 1 to 16 signed grants")
    return [SignedGrant(x) for x in v]


def decode_value(data):
    try:
        return decode(data)
    except CborError as e:
        _malformed(f"not canonical CBOR: {e}")


class Presentation:
    def __init__(self, data):
        m = decode_value(data)
        _keys(m, {"chain", "caller", "nonce", "signature"}, set(), "presentation")
        self.chain = parse_chain(m.get("chain"))
        self.caller = m.get("caller"); self.caller_key = _did(self.caller, "caller")
        self.nonce = m.get("nonce"); self.signature = m.get("signature")
        if not isinstance(self.nonce, bytes) or len(self.nonce) != 16: _malformed("nonce is not 16 bytes")
        if not isinstance(self.signature, bytes) or len(self.signature) != 64: _malformed("signature is not 64 bytes")

    @property
    def leaf(self): return self.chain[-1]

    def payload(self, request_id):
        return encode({"request_id": request_id, "grant_id": self.leaf.id, "caller": self.caller, "nonce": self.nonce})


def _keeps(c, p):
    """Whether caveat c of a child keeps caveat p of its parent at least as strictly (SPEC 30 §5)."""
    if c.kind != p.kind: return False
    if p.kind == "ModelIn": return c.value <= p.value
    if p.kind == "MaxCostUj": return c.value <= p.value
    return encode(c.raw) == encode(p.raw)


def attenuation_fault(c, p):
    """What child grant c widens over its parent p, or None."""
    if not c.actions <= p.actions: return "actions"
    if p.resources is not None and (c.resources is None or not c.resources <= p.resources): return "resources"
    if c.budget_uj > p.budget_uj: return "budget"
    if c.not_before < p.not_before or c.expiry > p.expiry: return "window"
    for pc in p.caveats:
        if not any(_keeps(cc, pc) for cc in c.caveats): return f"drops or widens the {pc.kind} caveat"
    return None


def verify_chain(chain):
    """Steps 3–5 of SPEC 30 §8 over a parsed chain: signatures, linkage, attenuation, caveat kinds."""
    for i, sg in enumerate(chain):
        if not sg.signature_ok(): raise Denied("bad-signature", "the issuer's signature does not verify", i)
    # Step 4 link by link from the root, each link's linkage before its attenuation: a widening at
    # link 1 is named before a broken link 2 (the order mesh-java takes; SPEC 30 §8 says so).
    if chain[0].grant.parent is not None: raise Denied("broken-chain", "the root names a parent", 0)
    for i in range(1, len(chain)):
        sg, p = chain[i], chain[i - 1]
        if sg.grant.issuer != p.grant.subject: raise Denied("broken-chain", "issuer is not the parent's subject", i)
        if sg.grant.parent != p.id: raise Denied("broken-chain", "parent is not the previous link's grant id", i)
        f = attenuation_fault(sg.grant, p.grant)
        if f: raise Denied("not-attenuated", f, i)
    for i, sg in enumerate(chain):
        for c in sg.grant.caveats:
            if not c.known: raise Denied("unknown-caveat", c.kind, i)


class Gate:
    """One steward's enforcement point with its spend (SPEC 30 §8). Times are epoch milliseconds."""

    def __init__(self, steward):
        self.steward = steward
        self.debited, self.reserved, self.budget = {}, {}, {}
        self.spent = set(); self.horizon = None
        self.revoked = {}  # grant id -> from_ms (the earliest)

    def revoke(self, grant_id, from_ms):
        if grant_id not in self.revoked or from_ms < self.revoked[grant_id]: self.revoked[grant_id] = from_ms

    def _left(self, sg):
        # Python's integers hold the exact sums. mesh-java's figures stop at 2^63 - 1 and mark a link
        # whose debits went past it (SPEC 30 §8); every budget is at most 2^63 - 1, so both see the
        # same overspend at every budget, the top included.
        return sg.grant.budget_uj - self.debited.get(sg.id, 0) - self.reserved.get(sg.id, 0)

    def remaining(self, chain):
        return max(0, min(self._left(sg) for sg in chain))

    def decide(self, pres, request_id, ceiling, model, t_ms):
        chain = pres.chain; leaf = pres.leaf
        if pres.caller != leaf.grant.issuer: raise Denied("not-issuer", "the caller is not the leaf's issuer")
        if not verify(pres.caller_key, pres.signature, pres.payload(request_id)):
            raise Denied("bad-signature", "the presentation's signature does not verify for this request")
        verify_chain(chain)
        if leaf.grant.subject != self.steward: raise Denied("wrong-holder", "the leaf's subject is another steward")
        for i, sg in enumerate(chain):
            g = sg.grant
            if t_ms < g.not_before * 1000: raise Denied("not-yet-valid", "", i)
            if t_ms >= g.expiry * 1000: raise Denied("expired", "", i)
            if sg.id in self.revoked and self.revoked[sg.id] <= t_ms: raise Denied("revoked", "", i)
            if "infer" not in g.actions: raise Denied("action-not-permitted", "", i)
            if g.resources is not None and request_id not in g.resources: raise Denied("resource-not-permitted", "", i)
            for c in g.caveats:
                if c.kind == "ModelIn" and (model is None or model not in c.value):
                    raise Denied("caveat-unsatisfied", "ModelIn refuses the model", i)
        earliest = min(sg.grant.expiry for sg in chain) * 1000
        if self.horizon is not None and earliest <= self.horizon:
            raise Denied("expired", "the chain's earliest expiry is at or before the horizon")
        if (leaf.id, pres.nonce) in self.spent: raise Denied("presentation-spent", "")
        lefts = [self._left(sg) for sg in chain]
        if min(lefts) < ceiling:
            raise Denied("budget-exhausted", f"{min(lefts)} uJ left, ceiling {ceiling}", lefts.index(min(lefts)))
        self.spent.add((leaf.id, pres.nonce))
        for sg in chain: self.reserved[sg.id] = self.reserved.get(sg.id, 0) + ceiling
        self.horizon = t_ms if self.horizon is None else max(self.horizon, t_ms)
        return self.remaining(chain)

    def debit(self, chain, ceiling, uj):
        """Debits uj on every link, removing the reservation; returns the breach label or None."""
        for sg in chain:
            self.reserved[sg.id] -= ceiling
            self.debited[sg.id] = self.debited.get(sg.id, 0) + uj
        caps = [c.value for sg in chain for c in sg.grant.caveats if c.kind == "MaxCostUj"]
        if caps and uj > min(caps): return "caveat-unsatisfied"
        # "Past its budget" counts what other serves still hold reserved, as admission does (SPEC 30 §8).
        if any(self._left(sg) < 0 for sg in chain): return "budget-exhausted"
        return None


def request_cbor(r):
    """SPEC 10.3's canonical request from the pack's readable form."""
    m = {k: r[k] for k in ("max_tokens", "prompt_hash", "prompt_tokens", "fidelity_floor", "joule_ceiling_uj")}
    if "decision" in r: m["decision"] = dict(r["decision"])
    if "model" in r: m["model"] = r["model"]
    return encode(m)


def decide_case(i):
    """The conformance pack's decide_grant op (conformance/README.md) on its input."""
    g = Gate(i["steward"])
    for r in i.get("revocations", []): g.revoke(r["grant_id"], r["from_ms"])

    def one(p_hex, req, model, at_ms):
        pres = Presentation(bytes.fromhex(p_hex))
        rid = blake3(request_cbor(req)).hex()
        return pres, g.decide(pres, rid, req["joule_ceiling_uj"], model, at_ms)
    for h in i.get("history", []):
        try:
            pres, _ = one(h["presentation"], h["request"], h.get("model"), h["at_ms"])
        except Denied as e:  # the pack's history is serves that succeed (conformance/README.md)
            raise ValueError(f"a history serve was refused: {e}") from e
        g.debit(pres.chain, h["request"]["joule_ceiling_uj"], h["debit_uj"])
    pres, left = one(i["presentation"], i["request"], i.get("model"), i["at_ms"])
    out = {"grant_id": pres.leaf.id, "remaining_uj": left}
    if "debit_uj" in i:
        out["breach"] = g.debit(pres.chain, i["request"]["joule_ceiling_uj"], i["debit_uj"])
        out["remaining_after_debit_uj"] = g.remaining(pres.chain)
    return out


# Building, for the self-test and for hand-made cases: the signer's side of SPEC 30 §4 and §7.
def grant_map(issuer, subject, budget_uj, not_before, expiry, actions=("infer",), resources="*", caveats=(), parent=None):
    m = {"issuer": issuer, "subject": subject, "actions": sorted(actions, key=lambda a: encode(a)),
         "resources": resources if resources == "*" else sorted(resources), "budget_uj": budget_uj,
         "not_before": not_before, "expiry": expiry, "caveats": sorted(caveats, key=encode)}
    if parent is not None: m["parent"] = parent
    return m


def sign_grant(seed, m):
    from keys import sign
    return {"grant": m, "signature": sign(seed, encode(m))}


def grant_id(signed):
    return blake3(encode(signed)).hex()


def present(seed, caller, chain, request_id, nonce):
    from keys import sign
    payload = {"request_id": request_id, "grant_id": grant_id(chain[-1]), "caller": caller, "nonce": nonce}
    return encode({"chain": chain, "caller": caller, "nonce": nonce, "signature": sign(seed, encode(payload))})


def read_hex_line(path):
    """A file of one lowercase hex line (what `mesh grant` writes), its bytes."""
    text = open(path).read()
    body = text[:-1] if text.endswith("\n") else text
    if not re.fullmatch(r"(?:[0-9a-f]{2})+", body): _malformed(f"{path} is not one line of lowercase hex")
    return bytes.fromhex(body)


def parse_chain_bytes(data):
    return parse_chain(decode_value(data))


def verify_shards(parent, shards):
    """SPEC 30 §6 over what a holder signed: each shard is the parent chain plus one child of its leaf,
    the children name distinct subjects, and their budgets sum to no more than the leaf's."""
    verify_chain(parent)
    pids = [sg.id for sg in parent]; seen = set(); total = 0
    for n, ch in enumerate(shards):
        verify_chain(ch)
        if [sg.id for sg in ch[:-1]] != pids: raise Denied("broken-chain", f"shard {n + 1} does not extend the parent chain")
        child = ch[-1].grant
        if child.subject in seen: raise Denied("not-attenuated", f"shard {n + 1} names steward {child.subject} twice")
        seen.add(child.subject); total += child.budget_uj
    if total > parent[-1].grant.budget_uj:
        raise Denied("not-attenuated", f"the shares sum to {total} uJ, more than the leaf's {parent[-1].grant.budget_uj}")
    return total


def verify_revocation(data):
    """SPEC 30 §11: the chain verifies, the revoker issued one of its links, and signed the statement.
    Returns (revoked grant id, revoker, revoked_from)."""
    m = decode_value(data)
    _keys(m, {"chain", "revoker", "revoked_from", "signature"}, set(), "revocation")
    chain = parse_chain(m.get("chain"))
    revoker = m.get("revoker"); key = _did(revoker, "revoker")
    frm = _uint(m.get("revoked_from"), "revoked_from")
    if frm > MAX_TIME_S: _malformed("revoked_from is past the last time mesh-java holds")
    sig = m.get("signature")
    if not isinstance(sig, bytes) or len(sig) != 64: _malformed("signature is not 64 bytes")
    verify_chain(chain)
    if revoker not in [sg.grant.issuer for sg in chain]: raise Denied("not-issuer", "the revoker issued no link of the chain")
    stmt = {"grant_id": chain[-1].id, "revoker": revoker, "revoked_from": frm, "statement": "revoke"}
    if not verify(key, sig, encode(stmt)): raise Denied("bad-signature", "the revocation's signature does not verify")
    return chain[-1].id, revoker, frm
