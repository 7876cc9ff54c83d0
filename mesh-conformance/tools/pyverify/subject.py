#!/usr/bin/env python3
"""This verifier as a conformance-pack subject (conformance/README.md, "The protocol") for the grant
decisions alone: it answers `decide_grant` from jcp.py and `unsupported` to every other op (selftest.py
checks the receipt, chain and journal cases against the verdicts of the pack instead). So
`mesh conformance run --subject "python3 .../subject.py"` holds jcp.py to the `grants` group, and
crosscheck.py compares it with another subject on cases beyond the pack."""
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jcp  # noqa: E402


def answer(req):
    op, i = req.get("op"), req.get("input") or {}
    if op == "hello": return {"result": "valid", "output": {"name": "pyverify"}}
    if op != "decide_grant": return {"result": "unsupported"}
    try:
        return {"result": "valid", "output": jcp.decide_case(i)}
    except jcp.Denied as e:
        return {"result": "invalid", "reason": e.label, "output": {} if e.link is None else {"link": e.link},
                "detail": str(e)}
    except (ValueError, KeyError, TypeError) as e:  # an input the protocol does not allow: never a pass
        return {"result": "error", "detail": f"{type(e).__name__}: {e}"}


for line in sys.stdin:
    if not line.strip(): continue
    req = json.loads(line)
    a = answer(req); a["id"] = req.get("id")
    print(json.dumps(a), flush=True)
