#!/usr/bin/env python3
"""Independent mesh/1 verifier, written from mesh-1.md and SPEC.md alone (no mesh-java code read).

  verify.py envelopes FILE [--from-genesis]        hex envelopes, one a line, as a receipt chain (blank lines counted)
  verify.py checkpoint --steward DID FILE          a C2SP checkpoint signed by the steward's log key
  verify.py inclusion --steward DID CHECKPOINT ENVELOPE_HEX_FILE PROOF_JSON
  verify.py consistency --steward DID CHECKPOINT OLD_CHECKPOINT PROOF_JSON
  verify.py journal --steward DID FILE             record chain, receipts, checkpoints and seals
  verify.py snapshot --steward DID FILE [JOURNAL]  a journal snapshot (SPEC 60.8)
  verify.py grant FILE                             a grant chain (one hex line): signatures, linkage,
                                                   attenuation, caveat kinds (SPEC 30 §2-§5)
  verify.py shards CHAIN SHARD...                  shard chains of CHAIN's leaf (SPEC 30 §6)
  verify.py revocation FILE                        a revocation statement (SPEC 30 §11)
  verify.py present --steward DID --request JSON [--model DIGEST] --at-ms MS FILE
                                                   decide a presentation (one hex line) at a fresh
                                                   gate, as SPEC 30 §8 does; prints what is left

Exit 0 when accepted, 1 with the reason on stderr when refused.
"""
import base64, json, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from receipt import Refused, verify_chain  # noqa: E402
import jcp  # noqa: E402
import tlog, journal  # noqa: E402
from blake3py import blake3  # noqa: E402


def _strict_json(text):
    def pairs(ps):
        ks = [k for k, _ in ps]
        if len(set(ks)) != len(ks): raise ValueError("a key written twice")
        return dict(ps)
    def no_float(s): raise ValueError("a fraction where an integer is due: " + s)
    return json.loads(text, object_pairs_hook=pairs, parse_float=no_float)


def _hashes(p):
    out = []
    for s in p["path"]:
        if not isinstance(s, str) or not re.fullmatch(r"[A-Za-z0-9+/]{43}=", s): raise Refused("BAD_PROOF", "path element")
        b = base64.b64decode(s)
        # The unused low bits of the last digit must be zero: only the steward's own text is a hash.
        if base64.b64encode(b).decode() != s: raise Refused("BAD_PROOF", "path element not canonical base64")
        out.append(b)
    return out


def _int(p, k):
    v = p.get(k)
    if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v >= 1 << 63: raise Refused("BAD_PROOF", k)
    return v


def main(a):
    steward = None
    if "--steward" in a:
        i = a.index("--steward"); steward = a[i + 1]; del a[i:i + 2]
    cmd, args = a[0], a[1:]
    if cmd == "envelopes":
        text = open(args[0]).read()
        # Blank lines hold no envelope and can hide none; passed over and counted, as mesh verify does.
        blank = sum(1 for l in text.split("\n")[:-1 if text.endswith("\n") else None] if not l.strip())
        lines = [l for l in text.split("\n") if l.strip()]
        envs = []
        for l in lines:
            if not re.fullmatch(r"([0-9a-f]{2})+", l.strip()): raise Refused("BAD_HEX", "not lowercase hex")
            envs.append(bytes.fromhex(l.strip()))
        verify_chain(envs, "--from-genesis" in args)
        return f"verified {len(envs)} envelopes" + (f"; passed over {blank} blank lines" if blank else "")
    if cmd == "checkpoint":
        size, root, _ = tlog.verify_checkpoint(open(args[0], "rb").read(), steward)
        return f"checkpoint of size {size}, root {base64.b64encode(root).decode()}"
    if cmd in ("inclusion", "consistency"):
        size, root, _ = tlog.verify_checkpoint(open(args[0], "rb").read(), steward)
        try:
            p = _strict_json(open(args[2]).read())
        except ValueError as e:
            raise Refused("BAD_PROOF", str(e))
        path = _hashes(p)
        if cmd == "inclusion":
            env = bytes.fromhex(open(args[1]).read().strip())
            if _int(p, "tree_size") != size: raise Refused("SIZE_MISMATCH")
            if not tlog.verify_inclusion(_int(p, "leaf_index"), size, tlog.leaf_hash(blake3(env)), path, root):
                raise Refused("NOT_INCLUDED")
            return "included"
        osize, oroot, _ = tlog.verify_checkpoint(open(args[1], "rb").read(), steward)
        if _int(p, "from") != osize or _int(p, "to") != size: raise Refused("SIZE_MISMATCH")
        if not tlog.verify_consistency(osize, size, oroot, root, path): raise Refused("NOT_CONSISTENT")
        return "consistent"
    if cmd == "journal":
        return str(journal.verify_journal(args[0], steward))
    if cmd == "snapshot":
        return str(journal.verify_snapshot(args[0], steward, args[1] if len(args) > 1 else None))
    if cmd == "grant":
        chain = jcp.parse_chain_bytes(jcp.read_hex_line(args[0])); jcp.verify_chain(chain)
        return "\n".join(f"link {i} {sg.id}: {sg.grant.issuer} -> {sg.grant.subject}, {sg.grant.budget_uj} uJ, "
                         f"[{sg.grant.not_before}, {sg.grant.expiry}), caveats {[c.kind for c in sg.grant.caveats]}"
                         for i, sg in enumerate(chain))
    if cmd == "shards":
        total = jcp.verify_shards(jcp.parse_chain_bytes(jcp.read_hex_line(args[0])),
                                  [jcp.parse_chain_bytes(jcp.read_hex_line(f)) for f in args[1:]])
        return f"{len(args) - 1} shards, {total} uJ in all"
    if cmd == "revocation":
        gid, who, frm = jcp.verify_revocation(jcp.read_hex_line(args[0]))
        return f"{gid} revoked by {who} from {frm}"
    if cmd == "present":
        opt = {}
        for k in ("--request", "--model", "--at-ms"):
            if k in args:
                i = args.index(k); opt[k] = args[i + 1]; del args[i:i + 2]
        r = _strict_json(open(opt["--request"]).read())
        pres = jcp.Presentation(jcp.read_hex_line(args[0]))
        left = jcp.Gate(steward).decide(pres, jcp.blake3(jcp.request_cbor(r)).hex(), r["joule_ceiling_uj"],
                                        opt.get("--model"), int(opt["--at-ms"]))
        return f"admitted: grant {pres.leaf.id}, {left} uJ left after reserving the ceiling"
    raise SystemExit(__doc__)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    try:
        print(main(sys.argv[1:]))
    except Refused as e:
        print(f"refused: {e.reason}: {e.detail}", file=sys.stderr); sys.exit(1)
    except jcp.Denied as e:
        print(f"refused: {e}", file=sys.stderr); sys.exit(1)
