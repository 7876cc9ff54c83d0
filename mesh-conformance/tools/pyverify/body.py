"""granted_serve_request(body): the request an OpenAI-compatible body is served as (mesh-1 §2.3,
SPEC 70 "granted_serve_request(body)", "The canonical prompt text", "Metadata values", "Integer
fields"), written from the spec text alone. The endpoint's own refusals of options no backend
honours (a tool message, a speaker's name, n other than 1: SPEC 70) are not the derivation's and
are not made here. Typed decisions (SPEC 70 "Typed decisions") are not
derived here: such a body is refused as unsupported by this verifier.

  request_of(body_bytes) -> dict in jcp.request_cbor's form; raises BodyRefused(code, detail)"""
import json, re, unicodedata
from blake3py import blake3

U32, U63 = (1 << 32) - 1, (1 << 63) - 1
ROLE = re.compile(r"[A-Za-z0-9_-]{1,32}")
DECIMAL = re.compile(r"0|[1-9][0-9]*")
PART_TYPES = ("text", "input_text", "output_text")


class BodyRefused(Exception):
    def __init__(self, code, detail):
        super().__init__(f"{code}: {detail}")
        self.code, self.detail = code, detail


class _Float:
    """A JSON number written with a fraction or an exponent: never an integer field's value."""
    def __init__(self, text): self.text = text


def _parse(raw):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BodyRefused("not_utf8", "the body is not UTF-8")
    if text.startswith("\ufeff") or "\x00" in text: raise BodyRefused("not_utf8", "a byte-order mark or a zero byte")
    def pairs(ps):
        ks = [k for k, _ in ps]
        if len(set(ks)) != len(ks): raise BodyRefused("not_json", "a key written twice")
        return dict(ps)
    def const(c): raise BodyRefused("not_json", c)
    try:
        return json.loads(text, object_pairs_hook=pairs, parse_float=_Float, parse_constant=const)
    except ValueError as e:
        raise BodyRefused("not_json", str(e))


def _utf8(s, field):
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        raise BodyRefused("invalid_unicode", field)


def _whole(v, field, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int): raise BodyRefused("invalid_field", field)
    if not lo <= v <= hi: raise BodyRefused("invalid_field", f"{field} out of range")
    return v


def _meta(v, key, hi):
    if isinstance(v, str) and DECIMAL.fullmatch(v): n = int(v)
    elif isinstance(v, int) and not isinstance(v, bool): n = v
    else: raise BodyRefused("invalid_metadata", key)
    if not 0 <= n <= hi: raise BodyRefused("invalid_metadata", key)
    return n


def _message(m, where):
    if not isinstance(m, dict): raise BodyRefused("invalid_field", where)
    role = m.get("role")
    if not isinstance(role, str) or not ROLE.fullmatch(role): raise BodyRefused("invalid_field", where + ".role")
    # A tool message, tool_calls or a speaker's name are the endpoint's refusals ("Options no backend
    # honours"), not the derivation's: granted_serve_request reads role and content alone.
    c = m.get("content")
    if c is None: text = ""
    elif isinstance(c, str): text = c
    elif isinstance(c, list):
        out = []
        for i, p in enumerate(c):
            if not isinstance(p, dict) or p.get("type") not in PART_TYPES or not isinstance(p.get("text"), str):
                raise BodyRefused("unsupported", f"{where}.content[{i}]")
            out.append(p["text"])
        text = "".join(out)
    else: raise BodyRefused("invalid_field", where + ".content")
    return role, text


def request_of(raw):
    b = _parse(raw)
    if not isinstance(b, dict): raise BodyRefused("not_json", "the body is not an object")
    if ("messages" in b) == ("input" in b): raise BodyRefused("invalid_field", "a body has messages or input, one of them")
    if "mesh_decision" in b or "response_format" in b and b["response_format"] not in (None,) and \
            isinstance(b["response_format"], dict) and b["response_format"].get("type") == "json_schema":
        raise BodyRefused("unsupported_here", "typed decisions are not derived by this verifier")
    msgs = []
    if "messages" in b:
        if not isinstance(b["messages"], list) or not b["messages"]: raise BodyRefused("invalid_field", "messages")
        msgs = [_message(m, f"messages[{i}]") for i, m in enumerate(b["messages"])]
        mc, mt = b.get("max_completion_tokens"), b.get("max_tokens")
        if mc is not None and mt is not None and mc != mt: raise BodyRefused("invalid_field", "max_tokens and max_completion_tokens differ")
        mx, field = (mc, "max_completion_tokens") if mc is not None else (mt, "max_tokens")
    else:
        if b.get("instructions") is not None:
            if not isinstance(b["instructions"], str): raise BodyRefused("invalid_field", "instructions")
            msgs.append(("system", b["instructions"]))
        inp = b["input"]
        if isinstance(inp, str): msgs.append(("user", inp))
        elif isinstance(inp, list) and inp:
            for i, m in enumerate(inp):
                if isinstance(m, dict) and "type" in m and m["type"] != "message": raise BodyRefused("unsupported", f"input[{i}]")
                msgs.append(_message({k: v for k, v in m.items() if k != "type"} if isinstance(m, dict) else m, f"input[{i}]"))
        else: raise BodyRefused("invalid_field", "input")
        mx, field = b.get("max_output_tokens"), "max_output_tokens"
    prompt = b"".join(_utf8(role, "role") + b" " + str(len(_utf8(t, "content"))).encode() + b"\n" + _utf8(t, "content") + b"\n"
                      for role, t in msgs)
    meta = b.get("metadata") or {}
    if not isinstance(meta, dict): raise BodyRefused("invalid_field", "metadata")
    r = {"prompt_hash": blake3(prompt).hex(),
         "prompt_tokens": _meta(meta["prompt_tokens"], "prompt_tokens", U32) if "prompt_tokens" in meta else len(prompt),
         "max_tokens": 128 if mx is None else _whole(mx, field, 1, U32)}
    f = meta.get("fidelity_floor")
    if f is None: r["fidelity_floor"] = 0
    elif isinstance(f, str) and re.fullmatch(r"F?[0-4]", f): r["fidelity_floor"] = int(f[-1])
    elif isinstance(f, int) and not isinstance(f, bool) and 0 <= f <= 4: r["fidelity_floor"] = f
    else: raise BodyRefused("invalid_metadata", "fidelity_floor")
    if "joule_ceiling_uj" not in meta: raise BodyRefused("invalid_metadata", "a granted body names metadata.joule_ceiling_uj")
    r["joule_ceiling_uj"] = _meta(meta["joule_ceiling_uj"], "joule_ceiling_uj", U63)
    model = b.get("model")
    if model is not None and model != "auto":
        if not isinstance(model, str) or not model or len(model.encode("utf-16-le", "surrogatepass")) // 2 > 256 \
                or any(unicodedata.category(ch) == "Cc" for ch in model):
            raise BodyRefused("invalid_field", "model")
        _utf8(model, "model"); r["model"] = model
    return r
