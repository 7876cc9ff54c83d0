package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.hex;
import static org.meshjava.conformance.pack.internal.Fixtures.obj;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
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
    List<PackCase> c = new ArrayList<>();
    List<SealedReceipt> five = chain(5, 0xc0);
    List<SealedReceipt> fork = chain(3, 0xf0);
    ObjectNode forkedView = Fixtures.view(five.get(2));
    forkedView.put("nonce", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    SealedReceipt forked = Fixtures.sealValid(forkedView);
    ObjectNode editedView = Fixtures.view(five.get(2));
    editedView.put("estimated_uj", 1);
    Fixtures.derive(editedView);
    SealedReceipt resealed = Fixtures.sealValid(editedView);
    byte[] flipped = five.get(2).envelope().bytes();
    flipped[flipped.length - 1] ^= 1;
    ObjectNode otherSteward = Fixtures.view(five.get(2));
    otherSteward.put("steward", Fixtures.OTHER_STEWARD.value());
    SealedReceipt foreign = org.meshjava.receipt.Jcr1.seal(parse(otherSteward), Fixtures.OTHER_KEY);

    ok(
        c,
        "five-from-genesis",
        "five receipts, sequence 0 to 4, each prev the previous envelope's id",
        list(five, 0, 1, 2, 3, 4),
        true,
        five.get(4));
    ok(c, "genesis-alone", "a chain of one genesis receipt", list(five, 0), true, five.get(0));
    ok(
        c,
        "segment",
        "a segment from sequence 2: links checked, start anywhere",
        list(five, 2, 3, 4),
        false,
        five.get(4));
    ok(
        c,
        "cut-from-end",
        "the last two removed: a whole shorter chain (only a held receipt shows the cut, §2.2)",
        list(five, 0, 1, 2),
        true,
        five.get(2));
    bad(
        c,
        "segment-from-genesis",
        "a segment starting at sequence 1 checked as a chain from genesis",
        list(five, 1, 2, 3),
        true,
        "BROKEN_CHAIN",
        0);
    bad(c, "gap", "sequence 2 missing", list(five, 0, 1, 3, 4), true, "BROKEN_CHAIN", 2);
    bad(
        c,
        "swapped-pair",
        "sequences 1 and 2 swapped",
        list(five, 0, 2, 1, 3),
        true,
        "BROKEN_CHAIN",
        1);
    bad(c, "repeat", "sequence 1 twice", list(five, 0, 1, 1, 2), true, "BROKEN_CHAIN", 2);
    List<String> forkList = hexes(five, 0, 1, 2);
    forkList.add(forked.envelope().hex());
    bad(
        c,
        "fork",
        "a second receipt at sequence 2 after the first: two children of one parent",
        forkList,
        true,
        "BROKEN_CHAIN",
        3);
    List<String> otherChain = hexes(five, 0, 1);
    otherChain.add(fork.get(2).envelope().hex());
    bad(
        c,
        "foreign-link",
        "sequence 2 of another chain of the same steward: prev does not match",
        otherChain,
        true,
        "BROKEN_CHAIN",
        2);
    List<String> edited = hexes(five, 0, 1);
    edited.add(hex(flipped));
    edited.addAll(hexes(five, 3, 4));
    bad(
        c,
        "edited-middle",
        "envelope 2 altered in place: it no longer verifies",
        edited,
        true,
        "BAD_SIGNATURE",
        2);
    List<String> resealedList = hexes(five, 0, 1);
    resealedList.add(resealed.envelope().hex());
    resealedList.addAll(hexes(five, 3, 4));
    bad(
        c,
        "resealed-middle",
        "envelope 2 altered and re-signed by the steward: its successor's prev breaks",
        resealedList,
        true,
        "BROKEN_CHAIN",
        3);
    List<String> foreignList = hexes(five, 0, 1);
    foreignList.add(foreign.envelope().hex());
    bad(
        c,
        "other-steward",
        "sequence 2 sealed by another steward",
        foreignList,
        true,
        "BROKEN_CHAIN",
        2);
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

  private static List<String> hexes(List<SealedReceipt> chain, int... indices) {
    List<String> out = new ArrayList<>();
    for (int i : indices) {
      out.add(chain.get(i).envelope().hex());
    }
    return out;
  }

  private static List<String> list(List<SealedReceipt> chain, int... indices) {
    return hexes(chain, indices);
  }

  private static ObjectNode chainInput(List<String> envelopes, boolean fromGenesis) {
    ObjectNode in = obj();
    ArrayNode arr = in.putArray("envelopes");
    envelopes.forEach(arr::add);
    in.put("from_genesis", fromGenesis);
    return in;
  }

  private static void ok(
      List<PackCase> c,
      String slug,
      String comment,
      List<String> envelopes,
      boolean fromGenesis,
      SealedReceipt head) {
    ObjectNode e = obj();
    e.put("length", envelopes.size());
    e.put("head_sequence", head.receipt().sequence());
    e.put("head_envelope_id", head.envelope().id().hex());
    c.add(
        PackCase.valid(
            "chains/" + slug, comment, "verify_chain", chainInput(envelopes, fromGenesis), e));
  }

  private static void bad(
      List<PackCase> c,
      String slug,
      String comment,
      List<String> envelopes,
      boolean fromGenesis,
      String reason,
      int index) {
    c.add(
        PackCase.invalid(
                "chains/" + slug,
                comment,
                "verify_chain",
                chainInput(envelopes, fromGenesis),
                reason)
            .expecting("index", Fixtures.NODES.numberNode(index)));
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

    c.add(
        replay(
            "verified-reference-engine",
            "the reference vector re-run on the reference engine (SPEC 50's algorithm) opens its commitment",
            ref,
            engine(ref, true, null),
            null,
            null,
            "Verified",
            null));
    c.add(
        replay(
            "verified-commitment-vector",
            "the commitment vector re-run with its weights binding",
            com,
            engine(com, true, com.inputs().weights().orElseThrow().binding()),
            null,
            null,
            "Verified",
            null));
    c.add(
        replay(
            "verified-scripted",
            "a re-run that reproduces the sealed output, with the disclosure given",
            ref,
            engine(ref, true, null),
            rerun(ref.tokens()),
            ref,
            "Verified",
            null));
    c.add(
        replay(
                "diverged-at-5",
                "the disclosure opens the commitment and the re-run parts from it at token 5",
                ref,
                engine(ref, true, null),
                rerun(TokenSequence.of(diverged)),
                ref,
                "Diverged",
                null)
            .expecting("first_difference", Fixtures.NODES.numberNode(5)));
    c.add(
        replay(
                "diverged-prefix",
                "the re-run stops after 10 tokens: the verdict names index 10",
                ref,
                engine(ref, true, null),
                rerun(TokenSequence.of(java.util.Arrays.copyOf(t, 10))),
                ref,
                "Diverged",
                null)
            .expecting("first_difference", Fixtures.NODES.numberNode(10)));
    c.add(
        replay(
            "unattributable-without-disclosure",
            "the re-run differs and nothing disclosed confirms the opening and payload",
            ref,
            engine(ref, true, null),
            rerun(TokenSequence.of(diverged)),
            null,
            "NotReplayable",
            "UNATTRIBUTABLE_MISMATCH"));
    ObjectNode wrongOpening =
        replayInput(ref, engine(ref, true, null), rerun(TokenSequence.of(diverged)), ref);
    wrongOpening.put("opening", com.opening());
    c.add(
        PackCase.valid(
            "replays/unattributable-wrong-opening",
            "the replayer holds the wrong opening: even the honest disclosure cannot attribute the mismatch",
            "replay",
            wrongOpening,
            verdict("NotReplayable", "UNATTRIBUTABLE_MISMATCH")));
    c.add(
        replay(
            "not-deterministic",
            "the engine samples (§5)",
            ref,
            engine(ref, false, null),
            rerun(ref.tokens()),
            null,
            "NotReplayable",
            "SAMPLING_ENGINE"));
    ObjectNode otherBackend = engine(ref, true, null);
    otherBackend.put("backend", "other");
    c.add(
        replay(
            "other-backend",
            "the engine is not the backend the receipt names",
            ref,
            otherBackend,
            rerun(ref.tokens()),
            null,
            "NotReplayable",
            "OTHER_BACKEND"));
    ObjectNode otherRecipe = engine(ref, true, null);
    otherRecipe.put("recipe", "reference+lora");
    c.add(
        replay(
            "other-recipe",
            "the engine serves another recipe",
            ref,
            otherRecipe,
            rerun(ref.tokens()),
            null,
            "NotReplayable",
            "OTHER_BACKEND"));
    c.add(
        replay(
            "weights-missing",
            "the receipt sealed weights and the engine names none",
            com,
            engine(com, true, null),
            rerun(com.tokens()),
            null,
            "NotReplayable",
            "OTHER_WEIGHTS"));
    c.add(
        replay(
            "other-precision",
            "the same weights at another precision",
            com,
            engine(
                com,
                true,
                new org.meshjava.core.WeightsBinding(
                    com.inputs().weights().orElseThrow().binding().digest(), "bf16")),
            rerun(com.tokens()),
            null,
            "NotReplayable",
            "OTHER_WEIGHTS"));
    ObjectNode otherRequest = replayInput(ref, engine(ref, true, null), rerun(ref.tokens()), null);
    ObjectNode req = (ObjectNode) otherRequest.get("request");
    req.put("max_tokens", 17);
    c.add(
        PackCase.valid(
            "replays/other-request",
            "the request is not the receipt's (max_tokens 17)",
            "replay",
            otherRequest,
            verdict("NotReplayable", "OTHER_REQUEST")));
    ObjectNode fails = obj();
    fails.put("fails", true);
    c.add(
        replay(
            "engine-failed",
            "the engine fails on the re-run",
            ref,
            engine(ref, true, null),
            fails,
            null,
            "NotReplayable",
            "ENGINE_FAILED"));
    Disclosed dec =
        new Disclosed(
            Fixtures.serve(ReferenceInputs.v1Decision()).sealed(),
            ref.opening(),
            ref.payload(),
            TokenSequence.empty(),
            ReferenceInputs.v1Decision());
    c.add(
        replay(
            "decision-no-commitment",
            "a decision receipt commits to no output",
            dec,
            engine(dec, true, null),
            rerun(TokenSequence.empty()),
            null,
            "NotReplayable",
            "NO_COMMITMENT"));
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

  private static ObjectNode rerun(TokenSequence tokens) {
    ObjectNode r = obj();
    r.set("output_tokens", Fixtures.tokensJson(tokens));
    return r;
  }

  private static ObjectNode replayInput(
      Disclosed d,
      @Nullable ObjectNode engine,
      @Nullable ObjectNode rerun,
      @Nullable Disclosed disclosed) {
    ObjectNode in = obj();
    in.put("envelope", d.sealed().envelope().hex());
    in.set("request", Fixtures.requestJson(d.inputs().request()));
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

  private static PackCase replay(
      String slug,
      String comment,
      Disclosed d,
      @Nullable ObjectNode engine,
      @Nullable ObjectNode rerun,
      @Nullable Disclosed disclosed,
      String verdict,
      @Nullable String reason) {
    return PackCase.valid(
        "replays/" + slug,
        comment,
        "replay",
        replayInput(d, engine, rerun, disclosed),
        verdict(verdict, reason));
  }
}
