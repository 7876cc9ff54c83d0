#!/usr/bin/env python3
"""Drives `mesh serve` with the official OpenAI Python SDK and says what works.

An optional tool (no test depends on it; see README.md beside it). It starts its own stewards with
the `mesh` launcher, on ports from --port-base, in a temporary folder:

  A: no key (an ephemeral identity that honours grants from memory), console on
  B: a key and a file journal (grants journalled), console on
  C: a key without a journal (every grant answered 503 journal_not_durable)

and runs each case against them, printing one line per check and a count at the end. Every
request the SDK sends is recorded (an httpx event hook) so a case can count the SDK's own resends
and --dump-requests can write the exact bytes for a Java test to replay.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import openai
from openai import OpenAI

RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok), detail))
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else "  -- " + str(detail)[:600]))
    sys.stdout.flush()


class Recorder:
    """Every request an SDK client sends: method, path, headers and body bytes."""

    def __init__(self):
        self.requests = []

    def hook(self, request):
        body = request.read() if hasattr(request, "read") else request.content
        self.requests.append(
            {
                "method": request.method,
                "url": str(request.url),
                "headers": dict(request.headers),
                "body": body.decode("utf-8", "replace") if body else "",
            }
        )

    def clear(self):
        self.requests.clear()


class Mesh:
    """One `mesh serve` process in its own folder, stopped by stop()."""

    def __init__(self, launcher, work, name, port, console_port, args):
        self.work = work
        self.port = port
        self.console_port = console_port
        out = open(os.path.join(work, name + ".out"), "w")
        err = open(os.path.join(work, name + ".err"), "w")
        cmd = [launcher, "serve", "--port", str(port)]
        if console_port:
            cmd += ["--console", "--console-port", str(console_port)]
        self.proc = subprocess.Popen(
            cmd + args, cwd=work, stdout=out, stderr=err, env=dict(os.environ, MESH_NO_BUILD="1")
        )
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(name + " exited: " + open(err.name).read())
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                return
            except OSError:
                time.sleep(0.3)
        raise SystemExit(name + " did not listen on " + str(port))

    @property
    def base(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def console(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.console_port, path)) as r:
            return json.loads(r.read())

    def steward(self):
        with urllib.request.urlopen(self.base + "/mesh/steward") as r:
            return json.loads(r.read())["did"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def client(mesh, recorder=None, **kw):
    hooks = {"request": [recorder.hook]} if recorder else {}
    http = openai.DefaultHttpxClient(event_hooks=hooks)
    kw.setdefault("max_retries", 2)
    return OpenAI(base_url=mesh.base, api_key="unused", http_client=http, **kw)


META = {"fidelity_floor": "F1", "joule_ceiling_uj": "200000"}


def chat_args(prompt="Hello from the Python SDK.", max_tokens=8, **extra):
    args = dict(
        model="auto",
        messages=[{"role": "user", "content": prompt}],
        max_tokens=max_tokens,
        metadata=dict(META),
    )
    args.update(extra)
    return args


class Grants:
    """A caller key and a grant to one steward, and presentations signed with the CLI."""

    def __init__(self, launcher, work, steward_did, budget_uj=50_000_000):
        self.launcher = launcher
        self.work = work
        self.n = 0
        self.tag = steward_did[-8:]
        self.key = os.path.join(work, "caller-%s.key" % steward_did[-8:])
        self.chain = os.path.join(work, "grant-%s.hex" % steward_did[-8:])
        self.cli("key", "generate", "--out", self.key)
        self.cli(
            "grant", "issue", "--issuer-key", self.key, "--subject", steward_did,
            "--budget-uj", str(budget_uj), "--expires", "PT2H", "--out", self.chain,
        )

    def cli(self, *args):
        r = subprocess.run(
            [self.launcher, *args], cwd=self.work, capture_output=True, text=True,
            env=dict(os.environ, MESH_NO_BUILD="1"),
        )
        if r.returncode != 0:
            raise SystemExit("mesh %s: %s" % (" ".join(args), r.stderr))
        return r.stdout

    def present(self, body):
        """The body with `jcp_presentation` removed, and the presentation, signed for it."""
        self.n += 1
        src = os.path.join(self.work, "body-%s-%d.json" % (self.tag, self.n))
        out = os.path.join(self.work, "granted-%s-%d.json" % (self.tag, self.n))
        pres = os.path.join(self.work, "presentation-%s-%d.hex" % (self.tag, self.n))
        with open(src, "w") as f:
            json.dump(body, f)
        self.cli(
            "grant", "present", "--caller-key", self.key, "--chain", self.chain,
            "--body", src, "--out", pres, "--out-body", out,
        )
        with open(out) as f:
            signed = json.load(f)
        p = signed.pop("jcp_presentation")
        return signed, p


def expect_error(name, fn, cls, status, code, recorder=None, attempts=None):
    """Runs fn, which must raise cls with our status and code; counts attempts when asked."""
    if recorder:
        recorder.clear()
    try:
        fn()
        check(name, False, "no exception")
        return None
    except Exception as e:  # noqa: BLE001 (the class is the check)
        ok = isinstance(e, cls) and getattr(e, "status_code", None) == status
        body = getattr(e, "body", None)
        got_code = body.get("code") if isinstance(body, dict) else None
        msg = body.get("message") if isinstance(body, dict) else None
        detail = "%s %s code=%s msg=%s" % (type(e).__name__, getattr(e, "status_code", None), got_code, msg)
        check(name + ": " + cls.__name__ + " " + str(status), ok, detail)
        if code is not None:
            check(name + ": code " + code, got_code == code, detail)
        check(name + ": message is ours, request id", bool(msg) and str(e).find(msg) >= 0
              and (getattr(e, "request_id", "") or "").startswith("req_"), detail)
        if attempts is not None and recorder is not None:
            check(name + ": sent %d time(s)" % attempts, len(recorder.requests) == attempts,
                  "%d requests" % len(recorder.requests))
        return e


def run_basic(a, rec, dump):
    c = client(a, rec)
    # Models.
    models = c.models.list()
    ids = [m.id for m in models.data]
    check("models.list names the backends", "small" in ids or len(ids) > 0, ids)
    m = c.models.retrieve(ids[0])
    check("models.retrieve returns the listed model", m.id == ids[0], m)
    expect_error("models.retrieve unknown", lambda: c.models.retrieve("no-such-model"),
                 openai.NotFoundError, 404, None, rec, 1)

    # Chat, whole.
    rec.clear()
    r = c.chat.completions.create(**chat_args())
    dump("chat-plain", rec)
    check("chat: content", bool(r.choices[0].message.content), r)
    check("chat: finish_reason length", r.choices[0].finish_reason == "length", r.choices[0])
    check("chat: usage counts", r.usage.completion_tokens == 8 and r.usage.prompt_tokens > 0, r.usage)
    energy = (r.usage.model_extra or {}).get("energy")
    check("chat: usage.energy receipt", bool(energy) and "envelope_hex" in energy, r.usage)
    check("chat: _request_id", (r._request_id or "").startswith("req_"), r._request_id)

    # Stream, without and with include_usage.
    rec.clear()
    chunks = list(c.chat.completions.create(**chat_args(stream=True)))
    dump("chat-stream", rec)
    text = "".join((ch.choices[0].delta.content or "") for ch in chunks if ch.choices)
    check("stream: every chunk has a choice", all(ch.choices for ch in chunks), len(chunks))
    check("stream: text matches the whole reply", text == r.choices[0].message.content, text)
    last = chunks[-1]
    check("stream: finish chunk carries energy", last.choices[0].finish_reason == "length"
          and "energy" in (last.model_extra or {}), last)
    rec.clear()
    chunks = list(c.chat.completions.create(**chat_args(stream=True, stream_options={"include_usage": True})))
    dump("chat-stream-usage", rec)
    check("stream include_usage: last chunk has no choices and usage",
          chunks[-1].choices == [] and chunks[-1].usage is not None
          and chunks[-1].usage.completion_tokens == 8, chunks[-1])
    check("stream include_usage: usage.energy", "energy" in (chunks[-1].usage.model_extra or {}),
          chunks[-1].usage)
    check("stream include_usage: other chunks have usage null",
          all(ch.usage is None for ch in chunks[:-1]), [ch.usage for ch in chunks[:-1]])

    # Raw and streaming responses.
    raw = c.chat.completions.with_raw_response.create(**chat_args())
    check("with_raw_response: headers", raw.headers.get("x-request-id", "").startswith("req_")
          and raw.headers.get("content-type", "").startswith("application/json"), dict(raw.headers))
    check("with_raw_response: parse()", raw.parse().choices[0].message.content, raw)
    with c.chat.completions.with_streaming_response.create(**chat_args()) as resp:
        check("with_streaming_response: status 200", resp.status_code == 200, resp.status_code)
        check("with_streaming_response: parse()", resp.parse().usage.completion_tokens == 8, "")
    with c.chat.completions.with_streaming_response.create(**chat_args(stream=True)) as resp:
        lines = [ln for ln in resp.iter_lines() if ln]
        check("with_streaming_response stream: SSE lines end with [DONE]",
              lines and lines[-1] == "data: [DONE]", lines[-3:])
        check("with_streaming_response stream: content type",
              resp.headers.get("content-type", "").startswith("text/event-stream"), dict(resp.headers))

    # The SDK's chat stream helper raises on finish_reason length (the SDK's rule, documented).
    try:
        with c.chat.completions.stream(**chat_args()) as s:
            for _ in s:
                pass
            s.get_final_completion()
        check("chat.completions.stream helper (expected LengthFinishReasonError)", False, "no raise")
    except openai.LengthFinishReasonError:
        check("chat.completions.stream helper raises LengthFinishReasonError (SDK rule)", True)

    # Responses API.
    rec.clear()
    rr = c.responses.create(model="auto", input="Hello responses.", max_output_tokens=8, metadata=dict(META))
    dump("responses-plain", rec)
    check("responses: output_text", bool(rr.output_text), rr)
    check("responses: incomplete for max_output_tokens", rr.status == "incomplete"
          and rr.incomplete_details and rr.incomplete_details.reason == "max_output_tokens", rr)
    check("responses: usage", rr.usage and rr.usage.output_tokens == 8, rr.usage)
    check("responses: the cut message is incomplete too", rr.output[0].status == "incomplete", rr.output[0])
    rec.clear()
    again = c.responses.create(model="auto", input=[{"role": "user", "content": "Hello responses."}, *rr.output,
                                                    {"role": "user", "content": "Go on."}],
                               max_output_tokens=4, metadata=dict(META))
    dump("responses-replayed-output", rec)
    check("responses: its output sent back as input is served", again.usage.output_tokens == 4, again.usage)
    rec.clear()
    events = list(c.responses.create(model="auto", input="Hello responses.", max_output_tokens=8,
                                     metadata=dict(META), stream=True))
    dump("responses-stream", rec)
    types = [e.type for e in events]
    check("responses stream: created..incomplete",
          types[0] == "response.created" and types[-1] in ("response.incomplete", "response.completed"), types)
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    check("responses stream: deltas = whole text", deltas == rr.output_text, deltas)
    seqs = [e.sequence_number for e in events]
    check("responses stream: sequence numbers 0..n", seqs == list(range(len(seqs))), seqs)
    item_done = [e for e in events if e.type == "response.output_item.done"]
    check("responses stream: output_item.done says incomplete", item_done and item_done[0].item.status == "incomplete",
          item_done)
    try:
        with c.responses.stream(model="auto", input="Hello responses.", max_output_tokens=8,
                                metadata=dict(META)) as s:
            got = [e.type for e in s]
            try:
                s.get_final_response()
                check("responses.stream helper final", True)
            except RuntimeError as e:
                check("responses.stream helper: events ok, final raises (SDK rule, documented)",
                      "response.completed" in str(e) and got[-1] == "response.incomplete", str(e))
    except Exception as e:  # noqa: BLE001
        check("responses.stream helper", False, repr(e))


def run_options(a, rec, dump):
    c = client(a, rec, max_retries=0)
    refusals = [
        ("n=2", dict(n=2), "n"),
        ("logprobs", dict(logprobs=True), "logprobs"),
        ("top_logprobs", dict(logprobs=True, top_logprobs=2), None),
        ("tools", dict(tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]), "tools"),
        ("tool_choice", dict(tool_choice="none"), "tool_choice"),
        ("stop", dict(stop=["x"]), "stop"),
        ("response_format json_object", dict(response_format={"type": "json_object"}), "response_format"),
        ("audio", dict(modalities=["audio"], audio={"voice": "alloy", "format": "wav"}), None),
        ("web_search_options", dict(web_search_options={}), "web_search_options"),
        ("prediction", dict(prediction={"type": "content", "content": "x"}), None),
        ("parallel_tool_calls", dict(parallel_tool_calls=True), None),
        ("functions (legacy)", dict(functions=[{"name": "f", "parameters": {"type": "object"}}]), None),
        ("seed", dict(seed=1), None),
    ]
    for name, extra, param in refusals:
        rec.clear()
        try:
            r = c.chat.completions.create(**chat_args(**extra))
            check("option %s: served (honoured or harmless?)" % name, True,
                  r.choices[0].finish_reason)
            print("      note: %s served, finish=%s" % (name, r.choices[0].finish_reason))
        except openai.BadRequestError as e:
            body = e.body if isinstance(e.body, dict) else {}
            check("option %s: 400 %s param=%s" % (name, body.get("code"), body.get("param")),
                  body.get("code") in ("unsupported", "invalid_field", "unsupported_schema")
                  and (param is None or body.get("param") == param), body)
        except Exception as e:  # noqa: BLE001
            check("option %s" % name, False, repr(e))
        dump("option-" + name.split()[0], rec)

    # Unknown fields through extra_body, extra_headers, extra_query.
    for name, kw in [
        ("extra_body unknown field", dict(extra_body={"frobnicate": 1})),
        ("extra_body null field", dict(extra_body={"user": None})),
        ("extra_headers", dict(extra_headers={"X-Custom": "1"})),
        ("extra_query", dict(extra_query={"api-version": "2024"})),
        ("user", dict(user="u-1")),
        ("temperature/top_p", dict(temperature=0.2, top_p=0.9)),
        ("max_completion_tokens", dict(max_completion_tokens=4)),
        ("store false", dict(store=False)),
        ("service_tier", dict(service_tier="auto")),
        ("reasoning_effort", dict(reasoning_effort="low")),
        ("presence_penalty", dict(presence_penalty=0.1, frequency_penalty=0.1)),
        ("logit_bias", dict(logit_bias={"1": 1})),
        ("stream_options without stream", dict(stream_options={"include_usage": True})),
        ("safety_identifier", dict(safety_identifier="x")),
        ("prompt_cache_key", dict(prompt_cache_key="x")),
        ("verbosity", dict(verbosity="low")),
    ]:
        rec.clear()
        try:
            args = chat_args(**kw)
            if "max_completion_tokens" in kw:
                args.pop("max_tokens")
            r = c.chat.completions.create(**args)
            print("      note: %s served (%d tokens)" % (name, r.usage.completion_tokens))
            check("%s: answered" % name, True)
        except openai.APIStatusError as e:
            print("      note: %s refused %s %s" % (name, e.status_code, e.body))
            check("%s: refused with a typed 4xx naming a field" % name,
                  400 <= e.status_code < 500 and isinstance(e.body, dict) and e.body.get("message"), e.body)
        dump("extra-" + name.split()[0], rec)

    # Structured output: a json_schema is a typed decision.
    schema = {"type": "object", "properties": {"duplicate": {"type": "boolean", "description": "Dup?"}},
              "required": ["duplicate"], "additionalProperties": False}
    r = c.chat.completions.create(**chat_args(response_format={
        "type": "json_schema", "json_schema": {"name": "t", "schema": schema, "strict": True}}))
    check("json_schema: content is JSON", isinstance(json.loads(r.choices[0].message.content), dict),
          r.choices[0].message.content)

    # Unicode and long prompts.
    for name, prompt in [
        ("unicode BMP+astral", "Grüße 你好 🎉 עברית \u200d"),
        ("unicode combining", "e\u0301" * 50),
        ("nul char", "a\u0000b"),
        ("lone surrogate", "x\ud800y"),
    ]:
        rec.clear()
        try:
            r = c.chat.completions.create(**chat_args(prompt=prompt))
            check("prompt %s: served" % name, r.usage.completion_tokens == 8, r.usage)
        except openai.BadRequestError as e:
            check("prompt %s: 400 %s" % (name, e.body.get("code")),
                  name == "lone surrogate" and e.body.get("code") == "invalid_unicode", e.body)
        except UnicodeEncodeError as e:
            # The SDK encodes its body as UTF-8 itself and cannot: nothing reaches the server.
            check("prompt %s: the SDK refuses to encode it (nothing sent)" % name,
                  name == "lone surrogate" and not rec.requests, repr(e))
        except Exception as e:  # noqa: BLE001
            check("prompt %s" % name, False, repr(e))
        dump("prompt-" + name.split()[0], rec)
    for size in (100_000, 900_000):
        rec.clear()
        try:
            r = c.chat.completions.create(**chat_args(prompt="w " * (size // 2)))
            check("long prompt %d chars: served" % size, True)
        except openai.APIStatusError as e:
            check("long prompt %d chars: typed refusal %s %s" % (size, e.status_code, e.body.get("code")),
                  e.status_code in (413, 422) and e.body.get("message"), e.body)
    rec.clear()
    c2 = client(a, rec)
    expect_error("body over the limit", lambda: c2.chat.completions.create(**chat_args(prompt="w" * 1_100_000)),
                 openai.APIStatusError, 413, "body_too_large", rec, 1)
    expect_error("max_tokens over every backend", lambda: c2.chat.completions.create(**chat_args(max_tokens=10**9)),
                 openai.UnprocessableEntityError, 422, "no_admissible_backend", rec, 1)
    expect_error("unknown model", lambda: c2.chat.completions.create(**dict(chat_args(), model="gpt-9")),
                 openai.NotFoundError, 404, "model_not_found", rec, 1)
    expect_error("no messages", lambda: c2.chat.completions.create(**dict(chat_args(), messages=[])),
                 openai.BadRequestError, 400, None, rec, 1)
    expect_error("bad metadata", lambda: c2.chat.completions.create(**dict(chat_args(), metadata={"fidelity_floor": "F9"})),
                 openai.BadRequestError, 400, "invalid_metadata", rec, 1)
    expect_error("responses: previous_response_id", lambda: c2.responses.create(
        model="auto", input="x", max_output_tokens=4, previous_response_id="resp_1"),
        openai.BadRequestError, 400, "unsupported", rec, 1)
    expect_error("responses: tools", lambda: c2.responses.create(
        model="auto", input="x", max_output_tokens=4, tools=[{"type": "web_search"}]),
        openai.BadRequestError, 400, "unsupported", rec, 1)
    expect_error("responses.retrieve", lambda: c2.responses.retrieve("resp_123"),
                 openai.NotFoundError, 404, "not_found", rec, 1)
    expect_error("embeddings", lambda: c2.embeddings.create(model="auto", input="x"),
                 openai.NotFoundError, 404, "not_found", rec, 1)


def run_grants(a, b, cc, grants_a, grants_b, launcher, work, rec, dump):
    c = client(a, rec)
    # A granted chat, then its presentation again: 403 presentation-spent, not retried.
    body, p = grants_a.present(chat_args(prompt="granted chat"))
    rec.clear()
    r = c.chat.completions.create(**body, extra_body={"jcp_presentation": p})
    dump("granted-chat", rec)
    check("granted chat: served with grant id", (r.usage.model_extra["energy"]["receipt"].get("grant_id")), r.usage)
    expect_error("granted twice", lambda: c.chat.completions.create(**body, extra_body={"jcp_presentation": p}),
                 openai.PermissionDeniedError, 403, "presentation-spent", rec, 1)
    # Changed after signing: 401 bad-signature.
    body2, p2 = grants_a.present(chat_args(prompt="granted chat 2"))
    body2["max_tokens"] = 9
    expect_error("granted body changed", lambda: c.chat.completions.create(**body2, extra_body={"jcp_presentation": p2}),
                 openai.AuthenticationError, 401, "bad-signature", rec, 1)
    expect_error("malformed presentation", lambda: c.chat.completions.create(**chat_args(), extra_body={"jcp_presentation": "zz"}),
                 openai.BadRequestError, 400, "malformed_presentation", rec, 1)

    # Key without journal: 503 journal_not_durable, x-should-retry false: exactly one attempt.
    g_c = Grants(launcher, work, cc.steward())
    c3 = client(cc, rec)
    body3, p3 = g_c.present(chat_args(prompt="granted not durable"))
    e = expect_error("grant on a journal-less key", lambda: c3.chat.completions.create(**body3, extra_body={"jcp_presentation": p3}),
                     openai.InternalServerError, 503, "journal_not_durable", rec, 1)
    if e is not None:
        check("journal_not_durable: x-should-retry false", e.response.headers.get("x-should-retry") == "false",
              dict(e.response.headers))

    # Granted stream closed early by the client: one receipt, the tokens made debited.
    cb = client(b, rec)
    before = b.console("/v1/mesh/receipts?limit=50")
    body4, p4 = grants_b.present(chat_args(prompt="granted stream, closed early", max_tokens=4000))
    rec.clear()
    s = cb.chat.completions.create(**body4, stream=True, extra_body={"jcp_presentation": p4})
    got = 0
    for ch in s:
        got += 1
        if got >= 3:
            break
    s.close()
    dump("granted-stream-closed", rec)
    time.sleep(1.5)
    after = b.console("/v1/mesh/receipts?limit=50")
    new = receipts_list(after)[: max(0, len(receipts_list(after)) - len(receipts_list(before)))]
    check("stream closed early: one new receipt", len(new) == 1, json.dumps(new)[:400])
    if new:
        toks = find_key(new[0], "tokens_out")
        check("stream closed early: receipt counts fewer tokens than asked", toks is not None and 0 < toks < 4000, toks)
    grants_view = b.console("/v1/mesh/grants")
    if new:
        gid = new[0].get("grant_id")
        sealed = sum(x.get("energy_uj", 0) for x in receipts_list(after) if x.get("grant_id") == gid)
        g = [x for x in grants_view.get("data", []) if x.get("grant_id") == gid]
        check("stream closed early: the grant is debited what its receipts sealed, nothing reserved",
              g and g[0].get("debited_uj") == sealed and g[0].get("reserved_uj") == 0,
              (sealed, json.dumps(grants_view)[:300]))
    expect_error("stream closed early: presentation spent on resend",
                 lambda: list(cb.chat.completions.create(**body4, stream=True, extra_body={"jcp_presentation": p4})),
                 openai.PermissionDeniedError, 403, "presentation-spent", rec, 1)

    # A granted serve the SDK times out on: the SDK resends, and the resend is refused spent.
    body5, p5 = grants_b.present(chat_args(prompt="granted, timed out", max_tokens=4000))
    ct = client(b, rec, timeout=0.05, max_retries=1)
    rec.clear()
    try:
        ct.chat.completions.create(**body5, extra_body={"jcp_presentation": p5})
        check("granted timeout: (served within 50 ms)", True)
    except openai.PermissionDeniedError as e:
        check("granted timeout, SDK resend: 403 presentation-spent (documented)",
              e.body.get("code") == "presentation-spent" and len(rec.requests) == 2, len(rec.requests))
    except openai.APITimeoutError:
        check("granted timeout: both attempts timed out", len(rec.requests) == 2, len(rec.requests))
    # Granted responses.
    body6, p6 = grants_a.present({"model": "auto", "input": "granted responses", "max_output_tokens": 6, "metadata": dict(META)})
    rec.clear()
    rr = c.responses.create(**body6, extra_body={"jcp_presentation": p6})
    dump("granted-responses", rec)
    check("granted responses: served", rr.usage.output_tokens == 6, rr.usage)


def receipts_list(view):
    if isinstance(view, dict):
        for k in ("receipts", "data"):
            if isinstance(view.get(k), list):
                return view[k]
    return view if isinstance(view, list) else []


def find_key(obj, key):
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for v in obj.values():
            f = find_key(v, key)
            if f is not None:
                return f
    if isinstance(obj, list):
        for v in obj:
            f = find_key(v, key)
            if f is not None:
                return f
    return None


def run_retries(rec, work, launcher, port):
    """A server with one serve slot, a slashed backend id, and 429 while a stream holds the slot."""
    cfg = os.path.join(work, "busy.json")
    slashed = "meta-llama/Llama-3.1-8B"
    with open(cfg, "w") as f:
        json.dump({"max_concurrent_serves": 1, "backends": [
            {"type": "reference", "name": slashed, "fidelity": "F1", "uj_per_token": 1,
             "max_output_tokens": 10_000_000, "max_concurrent_serves": 1, "max_waiting_serves": 0}]}, f)
    d = Mesh(launcher, work, "busy", port, 0, ["--config", cfg])
    try:
        c = client(d, rec)
        rec.clear()
        m = c.models.retrieve(slashed)
        check("models.retrieve of a slashed id as the Python SDK sends it", m.id == slashed,
              [r["url"] for r in rec.requests])
        # A stream far larger than the socket buffers, left unread, holds the one slot.
        big = chat_args(max_tokens=1_000_000, stream=True)
        big["metadata"] = {"fidelity_floor": "F1", "joule_ceiling_uj": "100000000000"}
        held = client(d).chat.completions.create(**big)
        next(iter(held))
        time.sleep(0.5)
        t0 = time.time()
        e = expect_error("429 while busy", lambda: c.chat.completions.create(**chat_args()),
                         openai.RateLimitError, 429, None, rec, 3)
        if e is not None:
            check("429: code overloaded or backend_busy", e.body.get("code") in ("overloaded", "backend_busy"), e.body)
            check("429: Retry-After 1 and no x-should-retry", e.response.headers.get("retry-after") == "1"
                  and e.response.headers.get("x-should-retry") is None, dict(e.response.headers))
            check("429: SDK waited about Retry-After between tries", time.time() - t0 >= 1.4, time.time() - t0)
        held.close()
    finally:
        d.stop()


def run_shutdown(rec, work, launcher, port):
    """A request while the steward drains: 503 shutting_down, Retry-After 1, resent by the SDK."""
    import signal

    cfg = os.path.join(work, "drain.json")
    with open(cfg, "w") as f:
        json.dump({"backends": [{"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 1,
                                 "max_output_tokens": 2_000_000}]}, f)
    d = Mesh(launcher, work, "drain", port, 0, ["--config", cfg])
    try:
        big = chat_args(max_tokens=1_000_000, stream=True)
        big["metadata"] = {"fidelity_floor": "F1", "joule_ceiling_uj": "100000000000"}
        held = client(d).chat.completions.create(**big)  # unread, so the drain waits for it
        next(iter(held))
        d.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        e = expect_error("while draining", lambda: client(d, rec).chat.completions.create(**chat_args()),
                         openai.InternalServerError, 503, "shutting_down", rec, 3)
        if e is not None:
            check("shutting_down: Retry-After 1, connection closed, no x-should-retry",
                  e.response.headers.get("retry-after") == "1" and e.response.headers.get("connection") == "close"
                  and e.response.headers.get("x-should-retry") is None, dict(e.response.headers))
        held.close()
    finally:
        d.stop()


class FakeUpstream:
    """An OpenAI-compatible upstream whose behaviour the prompt picks: 'cut' (a stream that stops
    after two pieces), 'slow' (answers after 3 s), 'fail' (500); otherwise a short answer."""

    def __init__(self, port):
        import http.server

        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(n))
                outer.seen.append(body)
                prompt = json.dumps(body.get("messages", ""))
                if "fail" in prompt:
                    data = b'{"error":{"message":"upstream broke","type":"server_error"}}'
                    self.send_response(500)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if "slow" in prompt:
                    time.sleep(3)
                usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for piece in ("hi", " there"):
                        chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                 "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                        self.wfile.flush()
                        time.sleep(0.2)
                    if "cut" in prompt:
                        self.close_connection = True
                        return
                    fin = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                    self.wfile.write(b"data: " + json.dumps(fin).encode() + b"\n\n")
                    u = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                         "choices": [], "usage": usage}
                    self.wfile.write(b"data: " + json.dumps(u).encode() + b"\n\ndata: [DONE]\n\n")
                    self.close_connection = True
                    return
                data = json.dumps({"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi there"},
                                                "finish_reason": "stop"}], "usage": usage}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.seen = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def run_upstream(rec, work, launcher, port):
    """Engine failures through an upstream backend: what the SDK resends, and what it raises."""
    up = FakeUpstream(port + 10)
    cfg = os.path.join(work, "upstream.json")
    with open(cfg, "w") as f:
        json.dump({"backends": [
            {"type": "upstream", "name": "remote", "base_url": "http://127.0.0.1:%d/v1" % (port + 10),
             "model": "m", "fidelity": "F1", "uj_per_token": 1},
            {"type": "upstream", "name": "dead", "base_url": "http://127.0.0.1:%d/v1" % (port + 11),
             "model": "m", "fidelity": "F1", "uj_per_token": 1}]}, f)
    d = Mesh(launcher, work, "upstream", port, port + 12, ["--config", cfg])
    try:
        g = Grants(launcher, work, d.steward())
        c = client(d, rec)
        r = c.chat.completions.create(**dict(chat_args(), model="remote"))
        check("upstream: served", r.choices[0].message.content == "hi there", r)
        e = expect_error("upstream down, ungranted: 502 resent by the SDK",
                         lambda: c.chat.completions.create(**dict(chat_args(), model="dead")),
                         openai.InternalServerError, 502, "engine_failed", rec, 3)
        body, p = g.present(dict(chat_args(), model="dead"))
        e = expect_error("upstream down, granted: 502 sent once",
                         lambda: c.chat.completions.create(**body, extra_body={"jcp_presentation": p}),
                         openai.InternalServerError, 502, "engine_failed", rec, 1)
        if e is not None:
            check("granted 502: x-should-retry false", e.response.headers.get("x-should-retry") == "false",
                  dict(e.response.headers))
        body, p = g.present(dict(chat_args(prompt="fail please"), model="remote"))
        expect_error("upstream 500, granted: 502 sent once",
                     lambda: c.chat.completions.create(**body, extra_body={"jcp_presentation": p}),
                     openai.InternalServerError, 502, "engine_failed", rec, 1)
        # A stream the upstream cuts: the SDK raises from the loop, with our code.
        rec.clear()
        pieces = []
        try:
            for ch in c.chat.completions.create(**dict(chat_args(prompt="cut me"), model="remote", stream=True)):
                pieces.append(ch)
            check("upstream cut mid-stream: SDK raises", False, "no raise after %d chunks" % len(pieces))
        except openai.APIError as e:
            code = e.body.get("code") if isinstance(e.body, dict) else getattr(e, "code", None)
            check("upstream cut mid-stream: APIError %s after %d chunks" % (code, len(pieces)),
                  code == "engine_failed", repr(e))
        # Responses streamed from the cut upstream: an error event.
        try:
            evs = [ev.type for ev in c.responses.create(model="remote", input="cut me", max_output_tokens=8,
                                                        metadata=dict(META), stream=True)]
            check("upstream cut mid responses stream: error event", "error" in evs or "response.failed" in evs, evs)
        except openai.APIError as e:
            check("upstream cut mid responses stream: APIError raised", True, repr(e))
        # A granted call the SDK times out on: its resend is refused spent, sealed once.
        before = len(receipts_list(d.console("/v1/mesh/receipts?limit=100")))
        body, p = g.present(dict(chat_args(prompt="slow please"), model="remote"))
        ct = client(d, rec, timeout=1.0, max_retries=1)
        rec.clear()
        try:
            ct.chat.completions.create(**body, extra_body={"jcp_presentation": p})
            check("granted timeout: resend served?", False, "served")
        except openai.PermissionDeniedError as e:
            check("granted timeout, SDK resend: 403 presentation-spent (documented)",
                  e.body.get("code") == "presentation-spent" and len(rec.requests) == 2, len(rec.requests))
        except openai.APITimeoutError:
            check("granted timeout: both attempts timed out (2 sent)", len(rec.requests) == 2, len(rec.requests))
        time.sleep(3.5)
        after = len(receipts_list(d.console("/v1/mesh/receipts?limit=100")))
        check("granted timeout: sealed once", after - before == 1, (before, after))
    finally:
        d.stop()
        up.stop()


def run_async_and_parse(a, rec):
    import asyncio

    from pydantic import BaseModel
    from typing import Literal

    class Triage(BaseModel):
        duplicate: bool
        team: Literal["finance", "ops", "legal"]

    c = client(a, rec)
    try:
        r = c.chat.completions.parse(**dict(chat_args(prompt="Invoice 4411 again?"), response_format=Triage))
        check("chat.completions.parse with a pydantic model", isinstance(r.choices[0].message.parsed, Triage), r)
    except Exception as e:  # noqa: BLE001
        check("chat.completions.parse with a pydantic model", False, repr(e))
    try:
        rr = c.responses.parse(model="auto", input="Invoice 4411 again?", text_format=Triage, metadata=dict(META))
        check("responses.parse with a pydantic model", isinstance(rr.output_parsed, Triage), rr)
    except Exception as e:  # noqa: BLE001
        check("responses.parse with a pydantic model", False, repr(e))

    async def go():
        ac = openai.AsyncOpenAI(base_url=a.base, api_key="unused")
        r = await ac.chat.completions.create(**chat_args())
        check("async chat", r.usage.completion_tokens == 8, r.usage)
        s = await ac.chat.completions.create(**chat_args(stream=True, stream_options={"include_usage": True}))
        chunks = [ch async for ch in s]
        check("async stream with usage", chunks[-1].usage and chunks[-1].usage.completion_tokens == 8, chunks[-1])
        before = len(receipts_list(a.console("/v1/mesh/receipts?limit=100")))
        s = await ac.chat.completions.create(**chat_args(max_tokens=4000, stream=True))
        n = 0
        async for _ in s:
            n += 1
            if n == 3:
                break
        await s.close()
        await asyncio.sleep(1.5)
        after = len(receipts_list(a.console("/v1/mesh/receipts?limit=100")))
        check("async stream closed early: one receipt", after - before == 1, (before, after))
        rr = await ac.responses.create(model="auto", input="async", max_output_tokens=4, metadata=dict(META))
        check("async responses", rr.usage.output_tokens == 4, rr.usage)
        try:
            await ac.chat.completions.create(**dict(chat_args(), n=3))
            check("async n=3 refused", False, "served")
        except openai.BadRequestError as e:
            check("async n=3: BadRequestError unsupported", e.body.get("code") == "unsupported", e.body)
        await ac.close()

    asyncio.run(go())


def run_cancel_stream_ungranted(a, rec):
    c = client(a, rec)
    before = receipts_list(a.console("/v1/mesh/receipts?limit=100"))
    s = c.chat.completions.create(**chat_args(max_tokens=4000, stream=True))
    for i, _ in enumerate(s):
        if i == 2:
            break
    s.close()
    time.sleep(1.5)
    after = receipts_list(a.console("/v1/mesh/receipts?limit=100"))
    check("ungranted stream closed early: one receipt", len(after) - len(before) == 1, (len(before), len(after)))
    # A client timeout mid-stream: httpx read timeout while iterating.
    ct = client(a, rec, timeout=openai.Timeout(5.0, read=0.0001), max_retries=0)
    try:
        for _ in ct.chat.completions.create(**chat_args(max_tokens=4000, stream=True)):
            pass
        check("stream read timeout: (finished)", True)
    except (openai.APITimeoutError, openai.APIConnectionError) as e:
        check("stream read timeout: SDK raises a timeout/connection error", True, repr(e))
    except Exception as e:  # noqa: BLE001
        check("stream read timeout: SDK raises a timeout class", "Timeout" in type(e).__name__
              or "timeout" in str(e).lower(), repr(e))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mesh", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "mesh"))
    ap.add_argument("--port-base", type=int, default=21300)
    ap.add_argument("--dump-requests", metavar="DIR", help="write each recorded request (method, url, headers, body)")
    ap.add_argument("--only", help="run only the sections whose names contain this (basic, options, grants, cancel, async, retries, upstream, shutdown)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--work-dir", help="the folder for keys, journals and logs (default: a new temporary one)")
    args = ap.parse_args()
    launcher = os.path.abspath(args.mesh)
    work = args.work_dir or tempfile.mkdtemp(prefix="sdk-check-")
    os.makedirs(work, exist_ok=True)
    rec = Recorder()

    def dump(name, recorder):
        if args.dump_requests:
            os.makedirs(args.dump_requests, exist_ok=True)
            safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
            with open(os.path.join(args.dump_requests, safe + ".json"), "w") as f:
                json.dump(recorder.requests, f, indent=1, ensure_ascii=False)

    if os.listdir(work):
        raise SystemExit("--work-dir %s is not empty: give a new or empty folder" % work)
    for k in ("b.key", "c.key"):
        subprocess.run([launcher, "key", "generate", "--out", os.path.join(work, k)], check=True,
                       capture_output=True, env=dict(os.environ, MESH_NO_BUILD="1"))
    p = args.port_base
    a = Mesh(launcher, work, "a", p + 1, p + 11, [])
    b = Mesh(launcher, work, "b", p + 2, p + 12,
             ["--key", "b.key", "--journal", os.path.join(work, "b.journal"), "--fresh-chain"])
    cc = Mesh(launcher, work, "c", p + 3, 0, ["--key", "c.key", "--fresh-chain"])
    print("openai", openai.__version__, "against", a.base, b.base, cc.base)
    try:
        def want(name):
            return not args.only or args.only in name

        if want("basic"):
            run_basic(a, rec, dump)
        if want("options"):
            run_options(a, rec, dump)
        if want("grants"):
            ga = Grants(launcher, work, a.steward())
            gb = Grants(launcher, work, b.steward())
            run_grants(a, b, cc, ga, gb, launcher, work, rec, dump)
        if want("cancel"):
            run_cancel_stream_ungranted(a, rec)
        if want("async"):
            run_async_and_parse(a, rec)
        if want("retries"):
            run_retries(rec, work, launcher, p + 4)
        if want("upstream"):
            run_upstream(rec, work, launcher, p + 5)
        if want("shutdown"):
            run_shutdown(rec, work, launcher, p + 6)
    finally:
        for m in (a, b, cc):
            m.stop()
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    failed = [r for r in RESULTS if not r[1]]
    print("%d checks, %d failed" % (len(RESULTS), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
