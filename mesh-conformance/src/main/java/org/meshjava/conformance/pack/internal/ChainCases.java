package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.hex;
import static org.meshjava.conformance.pack.internal.Fixtures.obj;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.meshjava.conformance.ReferenceInputs;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.core.ContentId;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.steward.ServeResult;

/**
 * The pack's groups about what links and opens receipts: the hash chain (§6.3, SPEC 20 §4), the
 * output commitment and its disclosure (§6.4, SPEC 20 §5), and replay verdicts (§6.4, SPEC 50
 * Replay).
 */
final class ChainCases {
  private ChainCases() {}

  /** A chain of five receipts, sequence 0 to 4, each a reference generation with its own nonce. */
  static List<SealedReceipt> chain(int length, int variant) {
    List<SealedReceipt> out = new ArrayList<>();
    ObjectNode base = ReceiptCases.reference();
    for (int i = 0; i < length; i++) {
      ObjectNode v = base.deepCopy();
      v.put("sequence", i);
      if (i > 0) {
        v.put("prev", out.get(i - 1).envelope().id().hex());
      }
      v.put(
          "nonce",
          String.format("%02x", variant)
              + String.format("%02x", i)
              + "c2c3c4c5c6c7c8c9cacbcccdcecf");
      out.add(Fixtures.sealValid(v));
    }
    return out;
  }

  static PackGroup chains() {
    List<SealedReceipt> five = chain(5, 0xc0);
    ObjectNode forkedView = Fixtures.view(five.get(2));
    forkedView.put("nonce", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    ObjectNode editedView = Fixtures.view(five.get(2));
    editedView.put("estimated_uj", 1);
    Fixtures.derive(editedView);
    byte[] flipped = five.get(2).envelope().bytes();
    flipped[flipped.length - 1] ^= 1;
    ObjectNode otherSteward = Fixtures.view(five.get(2));
    otherSteward.put("steward", Fixtures.OTHER_STEWARD.value());
    // The receipts that break a chain at sequence 2, by the names the catalogue gives them.
    Map<String, String> breakers =
        Map.of(
            "forked-2", Fixtures.sealValid(forkedView).envelope().hex(),
            "other-chain-2", chain(3, 0xf0).get(2).envelope().hex(),
            "flipped-2", hex(flipped),
            "resealed-2", Fixtures.sealValid(editedView).envelope().hex(),
            "foreign-2",
                org.meshjava.receipt.Jcr1.seal(parse(otherSteward), Fixtures.OTHER_KEY)
                    .envelope()
                    .hex());

    List<PackCase> c = new ArrayList<>();
    for (JsonNode k : Fixtures.catalogue("chain-cases.json").get("cases")) {
      ObjectNode in = obj();
      ArrayNode envelopes = in.putArray("envelopes");
      for (JsonNode e : k.get("envelopes")) {
        envelopes.add(e.isInt() ? five.get(e.asInt()).envelope().hex() : breakers.get(e.asText()));
      }
      in.put("from_genesis", k.path("from_genesis").asBoolean(true));
      String id = "chains/" + k.get("slug").asText();
      String comment = k.get("comment").asText();
      if (k.has("reason")) {
        c.add(
            PackCase.invalid(id, comment, "verify_chain", in, k.get("reason").asText())
                .expecting("index", k.get("index")));
      } else {
        SealedReceipt head = five.get(k.get("envelopes").get(envelopes.size() - 1).asInt());
        ObjectNode e = obj();
        e.put("length", envelopes.size());
        e.put("head_sequence", head.receipt().sequence());
        e.put("head_envelope_id", head.envelope().id().hex());
        c.add(PackCase.valid(id, comment, "verify_chain", in, e));
      }
    }
    return new PackGroup(
        "chains",
        "Receipt hash chains (§6.3, SPEC 20 §4): op verify_chain; a broken chain names the index of the first envelope out of place.",
        c);
  }

  private static org.meshjava.receipt.MeshReceipt parse(ObjectNode v) {
    try {
      return org.meshjava.openai.ReceiptJson.parse(v);
    } catch (org.meshjava.receipt.ReceiptException e) {
      throw new IllegalStateException(e);
    }
  }

  // --- commitments -----------------------------------------------------------------------------

  /** A disclosure's parts for a published generation vector. */
  record Disclosed(
      SealedReceipt sealed,
      String opening,
      ContentId payload,
      TokenSequence tokens,
      ReferenceInputs inputs) {}

  static Disclosed disclosed(ReferenceInputs in) {
    ServeResult r = Fixtures.serve(in);
    String opening =
        org.meshjava.conformance.ReferenceServe.steward(in).opening(in.request().id()).hex();
    return new Disclosed(
        r.sealed(), opening, OutputCommitment.payloadDigest(in.prompt()), r.tokens(), in);
  }

  static PackGroup commitments() {
    List<PackCase> c = new ArrayList<>();
    Disclosed ref = disclosed(ReferenceInputs.v1Generation());
    Disclosed com = disclosed(ReferenceInputs.v1Commitment());
    for (Disclosed d : List.of(ref, com)) {
      String name = d.equals(ref) ? "reference" : "commitment";
      ObjectNode in = obj();
      in.put("opening", d.opening());
      in.put("request_id", d.inputs().request().id().hex());
      in.set("prompt_payload", Fixtures.tokensJson(d.inputs().prompt()));
      in.set("output_tokens", Fixtures.tokensJson(d.tokens()));
      ObjectNode e = obj();
      e.put("payload_digest", d.payload().hex());
      e.put("output_commitment", d.sealed().receipt().outputCommitment().orElseThrow().hex());
      c.add(
          PackCase.valid(
              "commitments/commit-" + name,
              "the " + name + " vector's payload digest and output commitment",
              "commit_output",
              in,
              e));
      c.add(
          PackCase.valid(
              "commitments/disclose-" + name,
              "the " + name + " vector's disclosure opens its receipt",
              "verify_disclosure",
              disclosure(d, d.opening(), d.payload().hex(), d.tokens()),
              obj()));
    }
    int[] t = ref.tokens().toArray();
    int[] changed = t.clone();
    changed[3] ^= 1;
    notOpened(
        c,
        "token-changed",
        "token 3 changed",
        disclosure(ref, ref.opening(), ref.payload().hex(), TokenSequence.of(changed)));
    notOpened(
        c,
        "token-dropped",
        "the last token left out",
        disclosure(
            ref,
            ref.opening(),
            ref.payload().hex(),
            TokenSequence.of(java.util.Arrays.copyOf(t, t.length - 1))));
    notOpened(
        c,
        "wrong-opening",
        "the commitment vector's opening on the reference receipt (an opening binds its request)",
        disclosure(ref, com.opening(), ref.payload().hex(), ref.tokens()));
    notOpened(
        c,
        "wrong-payload",
        "another prompt payload's digest",
        disclosure(ref, ref.opening(), com.payload().hex(), ref.tokens()));
    ObjectNode dec = obj();
    dec.put("envelope", Fixtures.serve(ReferenceInputs.v1Decision()).sealed().envelope().hex());
    dec.put("opening", ref.opening());
    dec.put("payload_digest", ref.payload().hex());
    dec.set("output_tokens", Fixtures.NODES.arrayNode());
    c.add(
        PackCase.invalid(
            "commitments/decision-commits-nothing",
            "a decision receipt carries no commitment to open",
            "verify_disclosure",
            dec,
            "NO_COMMITMENT"));
    return new PackGroup(
        "commitments",
        "The output commitment and its disclosure (§6.4, SPEC 20 §5): ops commit_output and verify_disclosure.",
        c);
  }

  private static ObjectNode disclosure(
      Disclosed d, String opening, String payload, TokenSequence tokens) {
    ObjectNode in = obj();
    in.put("envelope", d.sealed().envelope().hex());
    in.put("opening", opening);
    in.put("payload_digest", payload);
    in.set("output_tokens", Fixtures.tokensJson(tokens));
    return in;
  }

  private static void notOpened(List<PackCase> c, String slug, String comment, ObjectNode in) {
    c.add(
        PackCase.invalid(
            "commitments/" + slug,
            comment + ": the disclosure does not open the receipt",
            "verify_disclosure",
            in,
            "NOT_OPENED"));
  }

  // --- replay ----------------------------------------------------------------------------------

  static PackGroup replays() {
    List<PackCase> c = new ArrayList<>();
    Disclosed ref = disclosed(ReferenceInputs.v1Generation());
    Disclosed com = disclosed(ReferenceInputs.v1Commitment());
    int[] t = ref.tokens().toArray();
    int[] diverged = t.clone();
    diverged[5] = (diverged[5] + 1) % 50_257;
    TokenSequence divergedTokens = TokenSequence.of(diverged);

    c.add(
        replay(
                "verified-reference-engine",
                "the reference vector re-run on the reference engine (SPEC 50's algorithm) opens its commitment",
                ref)
            .verified());
    c.add(
        replay(
                "verified-commitment-vector",
                "the commitment vector re-run with its weights binding",
                com)
            .engine(engine(com, true, com.inputs().weights().orElseThrow().binding()))
            .verified());
    c.add(
        replay(
                "verified-scripted",
                "a re-run that reproduces the sealed output, with the disclosure given",
                ref)
            .rerun(ref.tokens())
            .disclosing(ref)
            .verified());
    c.add(
        replay(
                "diverged-at-5",
                "the disclosure opens the commitment and the re-run parts from it at token 5",
                ref)
            .rerun(divergedTokens)
            .disclosing(ref)
            .diverged(5));
    c.add(
        replay(
                "diverged-prefix",
                "the re-run stops after 10 tokens: the verdict names index 10",
                ref)
            .rerun(TokenSequence.of(java.util.Arrays.copyOf(t, 10)))
            .disclosing(ref)
            .diverged(10));
    c.add(
        replay(
                "unattributable-without-disclosure",
                "the re-run differs and nothing disclosed confirms the opening and payload",
                ref)
            .rerun(divergedTokens)
            .notReplayable("UNATTRIBUTABLE_MISMATCH"));
    c.add(
        replay(
                "unattributable-wrong-opening",
                "the replayer holds the wrong opening: even the honest disclosure cannot attribute the mismatch",
                ref)
            .rerun(divergedTokens)
            .disclosing(ref)
            .editing(in -> in.put("opening", com.opening()))
            .notReplayable("UNATTRIBUTABLE_MISMATCH"));
    c.add(
        replay("not-deterministic", "the engine samples (§5)", ref)
            .engine(engine(ref, false, null))
            .rerun(ref.tokens())
            .notReplayable("SAMPLING_ENGINE"));
    c.add(
        replay("other-backend", "the engine is not the backend the receipt names", ref)
            .engine(engine(ref, true, null).put("backend", "other"))
            .rerun(ref.tokens())
            .notReplayable("OTHER_BACKEND"));
    c.add(
        replay("other-recipe", "the engine serves another recipe", ref)
            .engine(engine(ref, true, null).put("recipe", "reference+lora"))
            .rerun(ref.tokens())
            .notReplayable("OTHER_BACKEND"));
    c.add(
        replay("weights-missing", "the receipt sealed weights and the engine names none", com)
            .rerun(com.tokens())
            .notReplayable("OTHER_WEIGHTS"));
    c.add(
        replay("other-precision", "the same weights at another precision", com)
            .engine(
                engine(
                    com,
                    true,
                    new org.meshjava.core.WeightsBinding(
                        com.inputs().weights().orElseThrow().binding().digest(), "bf16")))
            .rerun(com.tokens())
            .notReplayable("OTHER_WEIGHTS"));
    c.add(
        replay("other-request", "the request is not the receipt's (max_tokens 17)", ref)
            .rerun(ref.tokens())
            .editing(in -> ((ObjectNode) in.get("request")).put("max_tokens", 17))
            .notReplayable("OTHER_REQUEST"));
    c.add(
        replay("engine-failed", "the engine fails on the re-run", ref)
            .failingRerun()
            .notReplayable("ENGINE_FAILED"));
    Disclosed dec =
        new Disclosed(
            Fixtures.serve(ReferenceInputs.v1Decision()).sealed(),
            ref.opening(),
            ref.payload(),
            TokenSequence.empty(),
            ReferenceInputs.v1Decision());
    c.add(
        replay("decision-no-commitment", "a decision receipt commits to no output", dec)
            .rerun(TokenSequence.empty())
            .notReplayable("NO_COMMITMENT"));
    return new PackGroup(
        "replays",
        "Re-execution verdicts (§6.4, SPEC 50 Replay): op replay; the subject answers Verified, Diverged with the first differing index, or NotReplayable with its reason.",
        c);
  }

  private static ObjectNode engine(
      Disclosed d, boolean deterministic, org.meshjava.core.@Nullable WeightsBinding weights) {
    ObjectNode e = obj();
    e.put("backend", d.inputs().backendName());
    e.put("recipe", d.inputs().recipe().name());
    e.put("deterministic", deterministic);
    e.put("work_per_token", d.inputs().workPerToken());
    if (weights != null) {
      e.put("weights_digest", weights.digest().hex());
      e.put("precision", weights.precision());
    }
    return e;
  }

  private static ObjectNode replayInput(
      Disclosed d,
      @Nullable ObjectNode engine,
      @Nullable ObjectNode rerun,
      @Nullable Disclosed disclosed) {
    ObjectNode in = obj();
    in.put("envelope", d.sealed().envelope().hex());
    in.set("request", ReferenceInputs.requestJson(d.inputs().request()));
    in.set("prompt_payload", Fixtures.tokensJson(d.inputs().prompt()));
    in.put("opening", d.opening());
    in.set("engine", engine);
    if (rerun != null) {
      in.set("rerun", rerun);
    }
    if (disclosed != null) {
      ObjectNode x = obj();
      x.put("opening", disclosed.opening());
      x.put("payload_digest", disclosed.payload().hex());
      x.set("output_tokens", Fixtures.tokensJson(disclosed.tokens()));
      in.set("disclosed", x);
    }
    return in;
  }

  private static ObjectNode verdict(String verdict, @Nullable String reason) {
    ObjectNode e = obj();
    e.put("verdict", verdict);
    if (reason != null) {
      e.put("reason", reason);
    }
    return e;
  }

  private static Replay replay(String slug, String comment, Disclosed d) {
    return new Replay(slug, comment, d);
  }

  /**
   * A replay case being built: {@code d}'s receipt replayed on its own backend, deterministic and
   * naming no weights, with no re-run and nothing disclosed, unless a setter says otherwise; the
   * verdict it expects ends it.
   */
  private static final class Replay {
    private final String slug;
    private final String comment;
    private final Disclosed d;
    private ObjectNode engine;
    private @Nullable ObjectNode rerun;
    private @Nullable Disclosed disclosed;
    private Consumer<ObjectNode> edit = in -> {};

    Replay(String slug, String comment, Disclosed d) {
      this.slug = slug;
      this.comment = comment;
      this.d = d;
      this.engine = ChainCases.engine(d, true, null);
    }

    /** The engine the replayer runs. */
    Replay engine(ObjectNode e) {
      engine = e;
      return this;
    }

    /** The re-run gives {@code tokens}. */
    Replay rerun(TokenSequence tokens) {
      rerun = obj();
      rerun.set("output_tokens", Fixtures.tokensJson(tokens));
      return this;
    }

    /** The re-run fails. */
    Replay failingRerun() {
      rerun = obj();
      rerun.put("fails", true);
      return this;
    }

    /** The replayer is shown {@code x}'s opening, payload digest and output. */
    Replay disclosing(Disclosed x) {
      disclosed = x;
      return this;
    }

    /** The input, once built, changed by {@code e}. */
    Replay editing(Consumer<ObjectNode> e) {
      edit = e;
      return this;
    }

    PackCase verified() {
      return expecting("Verified", null);
    }

    PackCase diverged(int firstDifference) {
      return expecting("Diverged", null)
          .expecting("first_difference", Fixtures.NODES.numberNode(firstDifference));
    }

    PackCase notReplayable(String reason) {
      return expecting("NotReplayable", reason);
    }

    private PackCase expecting(String verdict, @Nullable String reason) {
      ObjectNode in = replayInput(d, engine, rerun, disclosed);
      edit.accept(in);
      return PackCase.valid("replays/" + slug, comment, "replay", in, verdict(verdict, reason));
    }
  }
}
