#!/usr/bin/env python3
"""decide_grant cases beyond the pack (shapes, orders of checks, spend arithmetic), each decided by this
verifier (subject.py) and by another pack subject, and every answer that differs printed.

  crosscheck.py [--subject CMD] [-v]     CMD default: MESH_NO_BUILD=1 ./mesh conformance subject (run from the
                                          repository root); exit 1 on a disagreement
  crosscheck.py --bodies [--mesh CMD] [-v]
                                          `mesh grant present --body` on OpenAI bodies beside body.py: both must
                                          refuse the same bodies, and sign for the request id body.py derives
                                          (CMD default: MESH_NO_BUILD=1 ./mesh)

The keys are the pack's test seeds (01.., 02.., 03.., 04.., 05..); never use them for anything else."""
import json, os, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
import jcp
from keys import L, seed_pub, pub_to_did_key, sign
from blake3py import blake3
from cbor import encode, Map, Tag
s = lambda b: bytes([b]) * 32
ORG, CAL, STW, AG, OTHER = (pub_to_did_key(seed_pub(s(b))) for b in (1, 2, 3, 4, 5))
SEED = {ORG: s(1), CAL: s(2), STW: s(3), AG: s(4), OTHER: s(5)}
WA = blake3(b'weights-a').hex(); WB = blake3(b'weights-b').hex()
NB, EX = 1800000000, 1800003600
T = 1800000060000
def req(ceiling=1000, ph=None):
    return {"prompt_hash": ph or blake3(b'hello').hex(), "prompt_tokens": 5, "max_tokens": 16, "fidelity_floor": 2, "joule_ceiling_uj": ceiling}
def rid(r): return blake3(jcp.request_cbor(r)).hex()
def g(issuer, subject, budget=10_000_000, nb=NB, ex=EX, **kw): return jcp.grant_map(issuer, subject, budget, nb, ex, **kw)
def sg(m, seed=None): return jcp.sign_grant(seed or SEED[m["issuer"]], m)
def chain2(root_kw={}, leaf_kw={}):
    r = sg(g(ORG, CAL, **root_kw)); l = sg(g(CAL, STW, budget=leaf_kw.pop('budget', 2_000_000), parent=jcp.grant_id(r), **leaf_kw))
    return [r, l]
def pres(chain, r=None, nonce=b'\7' * 16, caller=None, seed=None):
    caller = caller or chain[-1]["grant"]["issuer"]
    return jcp.present(seed or SEED.get(caller, s(2)), caller, chain, rid(r or req()), nonce).hex()
def raw_pres(chain, caller, nonce, r=None, seed=None, extra=None):
    payload = {"request_id": rid(r or req()), "grant_id": jcp.grant_id(chain[-1]), "caller": caller, "nonce": nonce}
    m = {"chain": chain, "caller": caller, "nonce": nonce, "signature": sign(seed or SEED[caller], encode(payload))}
    if extra: m.update(extra)
    return encode(m).hex()
def case(cid, p, r=None, model=WA, at=T, revs=(), hist=(), debit=None):
    i = {"steward": STW, "presentation": p, "request": r or req(), "model": model, "at_ms": at, "revocations": list(revs), "history": list(hist)}
    if debit is not None: i["debit_uj"] = debit
    return {"id": cid, "op": "decide_grant", "input": i}
C = []
add = lambda *a, **k: C.append(case(*a, **k))
# shapes
for a in ("a" * 64, "a" * 65, "Infer", "1nfer", "", "in fer", "a.b:c/d-e_f"):
    C.append(case("action-" + a[:10] + str(len(a)), pres([sg(g(CAL, STW, actions=["infer", a] if a != "infer" else ["infer"]))]), model=None))
add("actions-empty", pres([sg(g(CAL, STW, actions=[]))]), model=None)
m = g(CAL, STW); m["actions"] = ["infer", "infer"]; add("actions-dup", pres([sg(m)]), model=None)
m = g(CAL, STW); m["actions"] = ["train", "infer"]; add("actions-unsorted", pres([sg(m)]), model=None)
m = g(CAL, STW); m["actions"] = ["zz", "infer"]; add("actions-sorted-by-length", pres([sg(m)]), model=None)
m = g(CAL, STW); m["actions"] = ["infer", "zz"]; add("actions-sorted-lexically", pres([sg(m)]), model=None)
add("resources-empty", pres([sg(g(CAL, STW, resources=[]))]), model=None)
add("resources-all-text", pres([sg(g(CAL, STW, resources="all"))]), model=None)
m = g(CAL, STW); m["resources"] = rid(req()); add("resources-single-text-id", pres([sg(m)]), model=None)
add("resources-upper", pres([sg(g(CAL, STW, resources=[rid(req()).upper()]))]), model=None)
add("expiry-eq-nb", pres([sg(g(CAL, STW, ex=NB))]), model=None)
add("expiry-max-java", pres([sg(g(CAL, STW, ex=31556889864403199))]), model=None)
add("expiry-past-java", pres([sg(g(CAL, STW, ex=31556889864403200))]), model=None)
add("expiry-2p63", pres([sg(g(CAL, STW, ex=(1 << 63) - 1))]), model=None)
add("budget-max", pres([sg(g(CAL, STW, budget=(1 << 63) - 1))]), model=None)
add("budget-zero-ceiling-zero", pres([sg(g(CAL, STW, budget=0))], r=req(0)), r=req(0), model=None)
add("caveats-modelin-empty", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": []}]))]))
add("caveats-modelin-extra-key", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": [WA], "x": 1}]))]))
add("caveats-maxcost-negative", pres([sg(g(CAL, STW, caveats=[{"caveat": "MaxCostUj", "uj": -1}]))]))
add("caveats-maxcost-text", pres([sg(g(CAL, STW, caveats=[{"caveat": "MaxCostUj", "uj": "5"}]))]))
add("caveats-no-kind", pres([sg(g(CAL, STW, caveats=[{"uj": 5}]))]))
add("caveats-kind-int", pres([sg(g(CAL, STW, caveats=[{"caveat": 1}]))]))
add("caveats-unknown-bare", pres([sg(g(CAL, STW, caveats=[{"caveat": "Geo"}]))]))
add("caveats-unknown-intkey", pres([sg(g(CAL, STW, caveats=[{"caveat": "Geo", 1: 2}]))]))
add("caveats-unknown-nested", pres([sg(g(CAL, STW, caveats=[{"caveat": "Geo", "z": [Map([(1, b"x")])]}]))]))
add("caveats-lowercase-modelin", pres([sg(g(CAL, STW, caveats=[{"caveat": "modelin", "weights": [WA]}]))]))
m = g(CAL, STW); m["caveats"] = [{"caveat": "MaxCostUj", "uj": 5}, {"caveat": "MaxCostUj", "uj": 5}]; add("caveats-dup", pres([sg(m)]), model=None)
m = g(CAL, STW); m["caveats"] = [{"caveat": "ModelIn", "weights": [WA]}, {"caveat": "MaxCostUj", "uj": 5}]; add("caveats-unsorted", pres([sg(m)]))
add("caveats-two-maxcost", pres([sg(g(CAL, STW, caveats=[{"caveat": "MaxCostUj", "uj": 5}, {"caveat": "MaxCostUj", "uj": 900}]))]), model=None, debit=6)
add("caveats-two-modelin-intersect", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": [WA]}, {"caveat": "ModelIn", "weights": sorted([WA, WB])}]))]), model=WB)
add("caveats-two-modelin-ok", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": [WA]}, {"caveat": "ModelIn", "weights": sorted([WA, WB])}]))]), model=WA)
add("modelin-unsorted-weights", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": sorted([WA, WB], reverse=True)}]))]))
add("maxcost-equal-debit", pres([sg(g(CAL, STW, caveats=[{"caveat": "MaxCostUj", "uj": 700}]))]), model=None, debit=700)
add("maxcost-zero", pres([sg(g(CAL, STW, caveats=[{"caveat": "MaxCostUj", "uj": 0}]))]), model=None, debit=1)
# grant map keys
m = g(CAL, STW); m["extra"] = 1; add("grant-extra-key", pres([sg(m)]), model=None)
m = g(CAL, STW); del m["caveats"]; add("grant-missing-caveats", pres([sg(m)]), model=None)
m = g(CAL, STW); m["parent"] = "00" * 32; add("root-with-parent", pres([sg(m)]), model=None)
m = g(CAL, STW); m["parent"] = "zz"; add("root-parent-not-hex", pres([sg(m)]), model=None)
m = g(CAL, STW); m["issuer"] = ORG[:-1] + ("a" if ORG[-1] != "a" else "b"); add("issuer-bad-didkey", pres([sg(m, s(2))]), model=None)
m = g(CAL, STW); m["budget_uj"] = -5; add("budget-negative", pres([sg(m)]), model=None)
m = g(CAL, STW); m["budget_uj"] = Tag(2, b"\1"); add("budget-tag", pres([sg(m)]), model=None)
# signed grant envelope
x = sg(g(CAL, STW)); x["signature"] = x["signature"][:63]; add("sig-63", pres([x]), model=None)
x = sg(g(CAL, STW)); x["extra"] = 0; add("signed-extra-key", pres([x]), model=None)
x = sg(g(CAL, STW)); S = int.from_bytes(x["signature"][32:], "little") + L
x["signature"] = x["signature"][:32] + S.to_bytes(32, "little"); add("sig-malleated-S", pres([x]), model=None)
x = sg(g(CAL, STW)); add("grant-tagged", raw_pres([Tag(24, x)], CAL, b"\7" * 16), model=None)
# presentation shape
add("nonce-15", raw_pres([sg(g(CAL, STW))], CAL, b"\7" * 15), model=None)
add("nonce-17", raw_pres([sg(g(CAL, STW))], CAL, b"\7" * 17), model=None)
add("pres-extra-key", raw_pres([sg(g(CAL, STW))], CAL, b"\7" * 16, extra={"x": 1}), model=None)
C.append(case("chain-empty", encode({"chain": [], "caller": CAL, "nonce": b"\7" * 16, "signature": b"\0" * 64}).hex(), model=None))
# chain of 17 self-delegations CAL->CAL ... ->STW
def long_chain(n):
    ch = [sg(g(CAL, CAL))]
    for _ in range(n - 2): ch.append(sg(g(CAL, CAL, parent=jcp.grant_id(ch[-1]))))
    ch.append(sg(g(CAL, STW, parent=jcp.grant_id(ch[-1])))); return ch
add("chain-16", pres(long_chain(16)), model=None)
add("chain-17", pres(long_chain(17)), model=None)
# ordering questions
r = sg(g(ORG, CAL)); l1 = sg(g(CAL, AG, budget=20_000_000, parent=jcp.grant_id(r))); l2 = sg(g(AG, STW, parent="00" * 32))
add("order-attenuation-link1-linkage-link2", pres([r, l1, l2]), model=None)
r = sg(g(ORG, CAL, caveats=[{"caveat": "Geo"}])); l = sg(g(CAL, STW, parent=jcp.grant_id(r)))
add("unknown-caveat-dropped", pres([r, l]), model=None)
r = sg(g(ORG, CAL, caveats=[{"caveat": "Geo"}])); l = sg(g(CAL, STW, parent=jcp.grant_id(r), caveats=[{"caveat": "Geo"}]))
add("unknown-caveat-copied", pres([r, l]), model=None)
r = sg(g(ORG, CAL, caveats=[{"caveat": "Geo", "a": 1}])); l = sg(g(CAL, STW, parent=jcp.grant_id(r), caveats=[{"caveat": "Geo", "a": 2}]))
add("unknown-caveat-changed", pres([r, l]), model=None)
r = sg(g(ORG, OTHER)); l = sg(g(OTHER, OTHER, parent=jcp.grant_id(r)))
add("wrong-holder-and-bad-window", pres([r, l]), model=None, at=1)
add("not-issuer-and-malleable", raw_pres([sg(g(CAL, STW))], ORG, b"\7" * 16), model=None)
r = sg(g(ORG, CAL, caveats=[{"caveat": "MaxCostUj", "uj": 10}])); l = sg(g(CAL, STW, parent=jcp.grant_id(r), caveats=[{"caveat": "MaxCostUj", "uj": 11}]))
add("maxcost-widened", pres([r, l]), model=None)
r = sg(g(ORG, CAL, caveats=[{"caveat": "ModelIn", "weights": sorted([WA, WB])}])); l = sg(g(CAL, STW, parent=jcp.grant_id(r), caveats=[{"caveat": "ModelIn", "weights": [WB]}, {"caveat": "ModelIn", "weights": sorted([WA, WB])}]))
add("modelin-narrowed-twice", pres([r, l]), model=WB)
r = sg(g(ORG, CAL, resources=[rid(req())])); l = sg(g(CAL, STW, parent=jcp.grant_id(r), resources=[rid(req())]))
add("resources-set-kept", pres([r, l]), model=None)
r = sg(g(ORG, CAL)); l = sg(g(CAL, STW, parent=jcp.grant_id(r), resources=[rid(req())]))
add("resources-narrowed", pres([r, l]), model=None)
add("window-start", pres(chain2()), at=NB * 1000)
add("window-last-ms", pres(chain2()), at=EX * 1000 - 1)
add("leaf-window-narrower", pres(chain2(leaf_kw={"nb": NB + 100})), at=T)
add("leaf-nb-before-root", pres(chain2(leaf_kw={"nb": NB - 1})), at=T)
ch = chain2()
add("revoked-leaf", pres(ch), revs=[{"grant_id": jcp.grant_id(ch[1]), "from_ms": 0}])
add("revoked-twice-earlier-wins", pres(ch), revs=[{"grant_id": jcp.grant_id(ch[1]), "from_ms": T}, {"grant_id": jcp.grant_id(ch[1]), "from_ms": T + 5}])
add("revoked-twice-later-given-first", pres(ch), revs=[{"grant_id": jcp.grant_id(ch[1]), "from_ms": T + 5}, {"grant_id": jcp.grant_id(ch[1]), "from_ms": T}])
def H(p, r=None, model=WA, at=T, debit=0): return {"presentation": p, "request": r or req(), "model": model, "at_ms": at, "debit_uj": debit}
add("same-request-new-nonce", pres(ch, nonce=b"\1" * 16), hist=[H(pres(ch), debit=10)])
short = chain2(leaf_kw={"ex": NB + 120}); longc = chain2(leaf_kw={"ex": EX})
add("horizon-refuses-earlier-expiring", pres(short), at=T, hist=[H(pres(longc), at=(NB + 200) * 1000)])
add("horizon-earlier-time-ok", pres(longc, nonce=b"\2" * 16), at=T, hist=[H(pres(longc), at=(NB + 200) * 1000)])
add("spent-before-budget", pres(chain2(leaf_kw={"budget": 1000})), hist=[H(pres(chain2(leaf_kw={"budget": 1000})), debit=1000)])
r = sg(g(ORG, CAL, budget=3000)); a = sg(g(CAL, STW, budget=2000, parent=jcp.grant_id(r))); b = sg(g(CAL, STW, budget=2000, nb=NB + 1, parent=jcp.grant_id(r)))
add("siblings-share-parent", pres([r, b]), hist=[H(pres([r, a]), model=None, debit=1500)], model=None)
add("siblings-share-parent-ok", pres([r, b]), hist=[H(pres([r, a]), model=None, debit=1000)], model=None, debit=1500)
add("overspend-parent-only", pres([r, b]), hist=[H(pres([r, a]), model=None, debit=1000)], model=None, debit=2100)
add("ceiling-zero-after-overspend", pres(chain2(leaf_kw={"budget": 1000}), r=req(0), nonce=b"\3" * 16), r=req(0), model=WA, hist=[H(pres(chain2(leaf_kw={"budget": 1000})), debit=1200)])
add("ceiling-zero-exact", pres(chain2(leaf_kw={"budget": 1000}), r=req(0), nonce=b"\3" * 16), r=req(0), model=WA, hist=[H(pres(chain2(leaf_kw={"budget": 1000})), debit=1000)])
ch3 = [sg(g(ORG, CAL, budget=5000))]; ch3.append(sg(g(CAL, AG, budget=800, parent=jcp.grant_id(ch3[0])))); ch3.append(sg(g(AG, STW, budget=900 - 100, parent=jcp.grant_id(ch3[1]))))
add("budget-tie", pres(ch3), model=None)
add("pres-signed-by-other-key", raw_pres(chain2(), CAL, b"\7" * 16, seed=s(9)))
p = bytes.fromhex(pres(chain2())); add("pres-trailing", (p + b"\0").hex())
add("pres-hex-as-text", encode(pres(chain2())).hex())

r = sg(g(ORG, CAL)); l1 = sg(g(CAL, AG, budget=20_000_000, parent=jcp.grant_id(r))); l2 = sg(g(AG, STW, parent=jcp.grant_id(l1)), s(9))
add("order-attenuation-link1-badsig-link2", pres([r, l1, l2]), model=None)
r = sg(g(ORG, CAL)); l1 = sg(g(CAL, AG, parent="00" * 32)); l2 = sg(g(AG, STW, budget=20_000_000, parent=jcp.grant_id(l1)))
add("order-linkage-link1-attenuation-link2", pres([r, l1, l2]), model=None)
r = sg(g(ORG, CAL)); l1 = sg(g(CAL, AG, caveats=[{"caveat": "Geo"}], parent=jcp.grant_id(r))); l2 = sg(g(AG, STW, budget=20_000_000, parent=jcp.grant_id(l1)))
add("order-unknown-link1-attenuation-link2", pres([r, l1, l2]), model=None)
r = sg(g(ORG, CAL)); l1 = sg(g(CAL, AG, parent=jcp.grant_id(r))); l2 = sg(g(AG, STW, parent=jcp.grant_id(l1)))
add("revoked-middle", pres([r, l1, l2]), model=None, revs=[{"grant_id": jcp.grant_id(l1), "from_ms": T}])
add("revoked-other-grant", pres([r, l1, l2]), model=None, revs=[{"grant_id": "00" * 32, "from_ms": 0}])
add("expired-middle-first", pres([r, sg(g(CAL, AG, ex=NB + 10, parent=jcp.grant_id(r)))]), model=None)
m = g(CAL, STW); m["subject"] = "did:key:z1" + STW[9:]; add("subject-leading-1", pres([sg(m)]), model=None)
m = g(CAL, STW); m["subject"] = "did:key:Z" + STW[9:]; add("subject-capital-z", pres([sg(m)]), model=None)
add("caller-not-didkey", encode({"chain": [sg(g(CAL, STW))], "caller": "did:web:x", "nonce": b"\7" * 16, "signature": b"\0" * 64}).hex(), model=None)
add("caller-bytes", encode({"chain": [sg(g(CAL, STW))], "caller": CAL.encode(), "nonce": b"\7" * 16, "signature": b"\0" * 64}).hex(), model=None)
add("modelin-uppercase-weight", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": [WA.upper()]}]))]))
add("modelin-weight-bytes", pres([sg(g(CAL, STW, caveats=[{"caveat": "ModelIn", "weights": [bytes.fromhex(WA)]}]))]))
add("model-not-in-modelin-but-no-modelin", pres([sg(g(CAL, STW))]), model=WB)
add("budget-2p63", pres([sg(g(CAL, STW, budget=1 << 63))]), model=None)
add("nb-zero", pres([sg(g(CAL, STW, nb=0))]), model=None)
add("ceiling-max", pres([sg(g(CAL, STW, budget=(1 << 63) - 1))], r=req((1 << 63) - 1)), r=req((1 << 63) - 1), model=None, debit=(1 << 63) - 1)
add("debit-max-overflow", pres([sg(g(CAL, STW, budget=(1 << 63) - 1))], r=req(5)), r=req(5), model=None, hist=[H(pres([sg(g(CAL, STW, budget=(1 << 63) - 1))], r=req(5), nonce=b"\5" * 16), r=req(5), model=None, debit=(1 << 63) - 1)], debit=(1 << 63) - 1)

big = [sg(g(CAL, STW, budget=(1 << 63) - 1))]
MX = (1 << 63) - 1
add("debit-sum-overflows", pres(big, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(big, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX)], debit=MX)
add("after-overflowed-debits", pres(big, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(big, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX), H(pres(big, r=req(0), nonce=b"\3" * 16), r=req(0), model=None, debit=MX)])
add("after-overflowed-debits-ceiling1", pres(big, r=req(1), nonce=b"\1" * 16), r=req(1), model=None, hist=[H(pres(big, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX), H(pres(big, r=req(0), nonce=b"\3" * 16), r=req(0), model=None, debit=MX)])
add("after-three-max-debits", pres(big, r=req(1), nonce=b"\1" * 16), r=req(1), model=None, hist=[H(pres(big, r=req(0), nonce=bytes([k]) * 16), r=req(0), model=None, debit=MX) for k in (2, 3, 4)])  # a history serve refused: both answer error
add("after-debits-summing-to-the-top", pres(big, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(big, r=req(0), nonce=bytes([k]) * 16), r=req(0), model=None, debit=d) for k, d in ((2, MX // 2), (3, MX // 2), (4, 1))], debit=0)
# SPEC 30 §8, "Figures": an overspend is seen at every budget, the top of the range included.
MX1 = MX - 1
below = [sg(g(CAL, STW, budget=MX1))]
add("top-spent-exactly-then-free", pres(big, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(big, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX)])
add("top-spent-exactly-then-one-more", pres(big, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(big, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX)], debit=1)
add("top-past-then-free", pres(big, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(big, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX), H(pres(big, r=req(0), nonce=b"\3" * 16), r=req(0), model=None, debit=1)])
add("below-top-spent-exactly", pres(below, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(below, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX1)], debit=0)
add("below-top-debit-to-top", pres(below, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(below, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX1)], debit=1)
add("below-top-past-then-free", pres(below, r=req(0), nonce=b"\1" * 16), r=req(0), model=None, hist=[H(pres(below, r=req(0), nonce=b"\2" * 16), r=req(0), model=None, debit=MX1), H(pres(below, r=req(0), nonce=b"\3" * 16), r=req(0), model=None, debit=2)])
add("budget-2p64-1", pres([sg(g(CAL, STW, budget=(1 << 64) - 1))]), model=None)
C = [c for c in C if c]


def run(cmd, cases):
    p = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out, _ = p.communicate("\n".join(json.dumps(c) for c in [{"id": "hello", "op": "hello", "input": {}}] + cases) + "\n")
    return {a["id"]: a for a in map(json.loads, filter(str.strip, out.splitlines()))}


# OpenAI bodies for `mesh grant present --body` (SPEC 70 "granted_serve_request(body)").
def _chat(*msgs, **kw):
    b = {"messages": [{"role": r, "content": c} for r, c in msgs], "metadata": {"joule_ceiling_uj": "1000"}}
    b.update(kw); return json.dumps(b, ensure_ascii=False).encode()
EXAMPLE = ('{"model":"auto","max_tokens":16,"messages":[{"role":"system","content":"Be brief."},{"role":"user",'
           '"content":"Hi \u00e9"}],"metadata":{"fidelity_floor":"F1","joule_ceiling_uj":"50000"}}').encode()
BODIES = {
    "spec-example": EXAMPLE,
    "responses-string": json.dumps({"input": "hi", "metadata": {"joule_ceiling_uj": 5}}).encode(),
    "responses-instructions-items": json.dumps({"instructions": "be brief", "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]}], "max_output_tokens": 5, "metadata": {"joule_ceiling_uj": 5}}).encode(),
    "responses-item-function-call": json.dumps({"input": [{"type": "function_call", "role": "user", "content": "x"}], "metadata": {"joule_ceiling_uj": 5}}).encode(),
    "responses-input-empty": json.dumps({"input": [], "metadata": {"joule_ceiling_uj": 5}}).encode(),
    "responses-instructions-null": json.dumps({"instructions": None, "input": "hi", "metadata": {"joule_ceiling_uj": 5}}).encode(),
    "content-null": _chat(("user", None)),
    "content-parts": _chat(("user", [{"type": "text", "text": "a"}, {"type": "output_text", "text": "\u00e9"}])),
    "content-part-image": _chat(("user", [{"type": "image_url", "image_url": {"url": "x"}}])),
    "content-number": _chat(("user", 5)),
    "role-space": _chat(("us er", "x")),
    "role-33": _chat(("u" * 33, "x")),
    "role-tool": _chat(("tool", "x")),
    "name-null": json.dumps({"messages": [{"role": "user", "content": "x", "name": None}], "metadata": {"joule_ceiling_uj": 1}}).encode(),
    "name-set": json.dumps({"messages": [{"role": "user", "content": "x", "name": "bob"}], "metadata": {"joule_ceiling_uj": 1}}).encode(),
    "max-both-equal": _chat(("user", "x"), max_tokens=9, max_completion_tokens=9),
    "max-both-differ": _chat(("user", "x"), max_tokens=9, max_completion_tokens=8),
    "max-zero": _chat(("user", "x"), max_tokens=0),
    "max-2p32": _chat(("user", "x"), max_tokens=1 << 32),
    "max-null": _chat(("user", "x"), max_tokens=None),
    "max-float": _chat(("user", "x")).replace(b'"metadata"', b'"max_tokens": 8.0, "metadata"'),
    "max-string": _chat(("user", "x"), max_tokens="8"),
    "prompt-tokens-7": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "prompt_tokens": "7"}),
    "prompt-tokens-07": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "prompt_tokens": "07"}),
    "prompt-tokens-2p32": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "prompt_tokens": 1 << 32}),
    "floor-F4": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "fidelity_floor": "F4"}),
    "floor-4": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "fidelity_floor": 4}),
    "floor-F5": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "fidelity_floor": "F5"}),
    "floor-f1": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1", "fidelity_floor": "f1"}),
    "ceiling-missing": _chat(("user", "x"), metadata={}),
    "metadata-null": _chat(("user", "x"), metadata=None),
    "ceiling-top": _chat(("user", "x"), metadata={"joule_ceiling_uj": str((1 << 63) - 1)}),
    "ceiling-2p63": _chat(("user", "x"), metadata={"joule_ceiling_uj": str(1 << 63)}),
    "ceiling-negative": _chat(("user", "x"), metadata={"joule_ceiling_uj": "-5"}),
    "ceiling-exponent": _chat(("user", "x"), metadata={"joule_ceiling_uj": "1e3"}),
    "model-named": _chat(("user", "x"), model="tiny"),
    "model-null": _chat(("user", "x"), model=None),
    "model-empty": _chat(("user", "x"), model=""),
    "model-number": _chat(("user", "x"), model=5),
    "model-c1-control": _chat(("user", "x"), model="a\u0085b"),
    "model-256": _chat(("user", "x"), model="m" * 256),
    "model-257": _chat(("user", "x"), model="m" * 257),
    "lone-surrogate": _chat(("user", "x")).replace(b'"x"', b'"\\ud800"'),
    "duplicate-key": _chat(("user", "x")).replace(b'{"messages"', b'{"max_tokens": 1, "max_tokens": 2, "messages"'),
    "text-after": _chat(("user", "x")) + b" {}",
    "both-shapes": json.dumps({"messages": [], "input": "x", "metadata": {"joule_ceiling_uj": 1}}).encode(),
    "neither-shape": json.dumps({"metadata": {"joule_ceiling_uj": 1}}).encode(),
    "messages-empty": _chat(),
    "bom": b"\xef\xbb\xbf" + _chat(("user", "x")),
    "not-object": b"[1]",
    "n-2": _chat(("user", "x"), n=2),
    "stream-true": _chat(("user", "x"), stream=True),
    "stream-options-without-stream": _chat(("user", "x"), stream_options={"include_usage": True}),
    "tool-choice-none": _chat(("user", "x"), tool_choice="none"),
    "parallel-tool-calls": _chat(("user", "x"), parallel_tool_calls=False),
}
# Bodies the endpoint refuses for an option it does not serve, or one OpenAI refuses (SPEC 70), and
# `present --body` with it, so no presentation is signed for them; the derivation is still defined,
# and body.py, which makes only the derivation's refusals, derives them.
ENDPOINT_REFUSES = {"role-tool", "name-set", "n-2", "stream-options-without-stream", "tool-choice-none",
                    "parallel-tool-calls"}


def bodies(argv):
    import tempfile
    from body import request_of, BodyRefused
    from keys import verify
    mesh = argv[argv.index("--mesh") + 1] if "--mesh" in argv else "MESH_NO_BUILD=1 ./mesh"
    dis = 0
    with tempfile.TemporaryDirectory() as d:
        key, chain = os.path.join(d, "caller.key"), os.path.join(d, "chain.hex")
        with open(key, "w") as f: f.write(s(2).hex() + "\n")
        os.chmod(key, 0o600)
        with open(chain, "w") as f: f.write(encode([sg(g(CAL, STW))]).hex() + "\n")
        for name, raw in BODIES.items():
            bf, out = os.path.join(d, name + ".json"), os.path.join(d, name + ".hex")
            with open(bf, "wb") as f: f.write(raw)
            j = subprocess.run(f"{mesh} grant present --caller-key {key} --chain {chain} --body {bf} --out {out}",
                               shell=True, capture_output=True, text=True)
            try:
                py = ("valid", rid(request_of(raw)))
            except BodyRefused as e:
                py = ("refused", e.code)
            if j.returncode == 0:
                pres = jcp.Presentation(bytes.fromhex(open(out).read().strip()))
                ok = py[0] == "valid" and name not in ENDPOINT_REFUSES \
                    and verify(pres.caller_key, pres.signature, pres.payload(py[1]))
                jv = ("valid", "signs the id body.py derives" if ok else "signs another id, or a body the endpoint refuses")
            else:
                ok = py[0] == ("valid" if name in ENDPOINT_REFUSES else "refused")
                jv = ("refused", (j.stderr or j.stdout).strip().splitlines()[-1:])
            if not ok: dis += 1; print("DIFF", name, "body.py:", py, "| mesh:", jv)
            elif "-v" in argv: print("same", name, py, "|", jv)
    print(f"{len(BODIES)} bodies, {dis} disagreements")
    return 1 if dis else 0


def main(argv):
    if "--bodies" in argv: return bodies(argv)
    other = "MESH_NO_BUILD=1 ./mesh conformance subject"
    if "--subject" in argv: other = argv[argv.index("--subject") + 1]
    py = run(f"{sys.executable} {os.path.join(HERE, 'subject.py')}", C); jv = run(other, C)
    dis = 0
    for c in C:
        a, b = py.get(c["id"]) or {}, jv.get(c["id"]) or {}
        ka, kb = (a.get("result"), a.get("reason")), (b.get("result"), b.get("reason"))
        oa = {k: v for k, v in a.get("output", {}).items() if k != "link"}
        ob = {k: v for k, v in (b.get("output") or {}).items() if k in oa}
        if ka != kb or (ka[0] == "valid" and oa != ob):
            dis += 1; print("DIFF", c["id"], "this:", ka, oa, a.get("detail"), "| other:", kb, b.get("output"), b.get("detail"))
        elif "-v" in argv: print("same", c["id"], ka, a.get("detail") or "", "|", b.get("detail") or "")
    print(f"{len(C)} cases, {dis} disagreements")
    return 1 if dis else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
