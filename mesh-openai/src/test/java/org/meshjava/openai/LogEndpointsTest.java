package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.NoteSignature;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;

/** The transparency log over HTTP (SPEC.md §65, 70). */
class LogEndpointsTest {
  private static List<TreeHash> path(JsonNode a) {
    List<TreeHash> out = new ArrayList<>();
    a.get("path").forEach(h -> out.add(TreeHash.of(Base64.getDecoder().decode(h.asText()))));
    return out;
  }

  private static ContentId serve(Fixture f, String prompt) {
    Fixture.Answer a = f.post("/v1/chat/completions", Fixture.chat(prompt));
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return ContentId.fromHex(a.json().get("usage").get("energy").get("envelope_id").asText());
  }

  private static Checkpoint checkpoint(Fixture f) throws Exception {
    Fixture.Answer a = f.get("/v1/mesh/checkpoint");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return Checkpoint.open(
        SignedNote.parse(a.json().get("checkpoint").asText()),
        Checkpoint.logKey(f.steward.identity()));
  }

  @Test
  void checkpointAndProofs_verifyWithOnlyTheStewardsDidKey() throws Exception {
    try (Fixture f = new Fixture()) {
      assertThat(f.get("/v1/mesh/checkpoint").status()).isEqualTo(404);
      List<ContentId> ids = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ids.add(serve(f, "logged " + i));
      }
      Checkpoint kept = checkpoint(f);
      assertThat(kept.size()).isEqualTo(3);
      for (int i = 0; i < 3; i++) {
        Fixture.Answer a = f.get("/v1/mesh/proof/inclusion?seq=" + i + "&size=3");
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        new InclusionProof(i, 3, path(a.json()))
            .verify(InclusionProof.leafHash(ids.get(i)), kept.root());
      }
      serve(f, "one more");
      Checkpoint now = checkpoint(f);
      Fixture.Answer c = f.get("/v1/mesh/proof/consistency?from=3");
      assertThat(c.status()).as(c.body()).isEqualTo(200);
      assertThat(c.json().get("to").asLong()).isEqualTo(4);
      new ConsistencyProof(3, 4, path(c.json())).verify(kept.root(), now.root());
    }
  }

  @Test
  void inclusionByEnvelopeId_answersTheSameProofAsBySequence() throws Exception {
    try (Fixture f = new Fixture()) {
      List<ContentId> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ids.add(serve(f, "by id " + i));
      }
      Checkpoint cp = checkpoint(f);
      for (int i = 0; i < 5; i++) {
        Fixture.Answer byId =
            f.get("/v1/mesh/proof/inclusion?envelope_id=" + ids.get(i).hex() + "&size=5");
        assertThat(byId.status()).as(byId.body()).isEqualTo(200);
        Fixture.Answer bySeq = f.get("/v1/mesh/proof/inclusion?seq=" + i + "&size=5");
        assertThat(byId.json()).isEqualTo(bySeq.json());
        assertThat(byId.json().get("sequence").asLong()).isEqualTo(i);
        new InclusionProof(i, 5, path(byId.json()))
            .verify(InclusionProof.leafHash(ids.get(i)), cp.root());
      }
      Fixture.Answer latest = f.get("/v1/mesh/proof/inclusion?envelope_id=" + ids.get(4).hex());
      assertThat(latest.json().get("tree_size").asLong()).isEqualTo(5);

      Fixture.Answer unknown =
          f.get("/v1/mesh/proof/inclusion?envelope_id=" + ContentId.ofBytes(new byte[1]).hex());
      assertThat(unknown.status()).isEqualTo(404);
      assertThat(unknown.json().get("error").get("code").asText()).isEqualTo("out_of_range");
      assertThat(unknown.json().get("error").get("param").asText()).isEqualTo("envelope_id");
      Fixture.Answer later =
          f.get("/v1/mesh/proof/inclusion?envelope_id=" + ids.get(4).hex() + "&size=4");
      assertThat(later.status()).isEqualTo(404);
      assertThat(f.get("/v1/mesh/proof/inclusion?envelope_id=ABC").status()).isEqualTo(400);
      Fixture.Answer both = f.get("/v1/mesh/proof/inclusion?seq=0&envelope_id=" + ids.get(0).hex());
      assertThat(both.status()).isEqualTo(400);
      assertThat(both.json().get("error").get("code").asText()).isEqualTo("invalid_field");
    }
  }

  @Test
  void witness_answersFromTheTree_withAProofAgainstTheLatestSignedCheckpoint() throws Exception {
    try (Fixture f = new Fixture()) {
      serve(f, "before");
      JsonNode energy =
          f.post("/v1/chat/completions", Fixture.chat("shown")).json().get("usage").get("energy");
      serve(f, "after");
      ObjectNode shown = Fixture.JSON.createObjectNode();
      shown.set("receipt", energy.get("receipt"));
      shown.set("envelope_hex", energy.get("envelope_hex"));
      Fixture.Answer held = f.post("/v1/mesh/witness", shown);
      assertThat(held.status()).as(held.body()).isEqualTo(200);
      JsonNode a = held.json();
      assertThat(a.get("held").asBoolean()).isTrue();
      assertThat(a.get("sequence").asLong()).isEqualTo(1);
      assertThat(a.get("leaf_index").asLong()).isEqualTo(1);
      assertThat(a.get("tree_size").asLong()).isEqualTo(3);
      // Checked with the steward's did:key alone: the checkpoint's signature, then the path.
      Checkpoint cp =
          Checkpoint.open(
              SignedNote.parse(a.get("checkpoint").asText()),
              Checkpoint.logKey(f.steward.identity()));
      assertThat(cp.size()).isEqualTo(3);
      ContentId id = ContentId.fromHex(energy.get("envelope_id").asText());
      new InclusionProof(1, 3, path(a)).verify(InclusionProof.leafHash(id), cp.root());
      // The checkpoint the witness signed is the one the log now serves.
      assertThat(f.get("/v1/mesh/checkpoint").json().get("checkpoint").asText())
          .isEqualTo(a.get("checkpoint").asText());
    }
  }

  @Test
  void logTurnedOff_proofsAre404NotKept_andTheWitnessStillAnswersWithoutAProof() {
    try (Fixture f = new Fixture(SigningKey.generate(), b -> b.transparencyLog(false), s -> {})) {
      JsonNode energy =
          f.post("/v1/chat/completions", Fixture.chat("unlogged"))
              .json()
              .get("usage")
              .get("energy");
      Fixture.Answer cp = f.get("/v1/mesh/checkpoint");
      assertThat(cp.status()).isEqualTo(404);
      assertThat(cp.json().get("error").get("code").asText()).isEqualTo("not_kept");
      assertThat(f.get("/v1/mesh/proof/inclusion?seq=0").json().get("error").get("code").asText())
          .isEqualTo("not_kept");
      assertThat(f.get("/v1/mesh/proof/consistency?from=1&to=1").status()).isEqualTo(404);
      ObjectNode shown = Fixture.JSON.createObjectNode();
      shown.set("receipt", energy.get("receipt"));
      shown.set("envelope_hex", energy.get("envelope_hex"));
      Fixture.Answer held = f.post("/v1/mesh/witness", shown);
      assertThat(held.status()).as(held.body()).isEqualTo(200);
      assertThat(held.json().get("held").asBoolean()).isTrue();
      assertThat(held.json().has("checkpoint")).isFalse();
    }
  }

  @Test
  void badQueries_areTypedRefusals_notServerErrors() {
    try (Fixture f = new Fixture()) {
      serve(f, "one");
      assertThat(f.get("/v1/mesh/proof/inclusion?seq=abc").status()).isEqualTo(400);
      assertThat(f.get("/v1/mesh/proof/inclusion").status()).isEqualTo(400);
      assertThat(f.get("/v1/mesh/proof/inclusion?seq=1&seq=2").status()).isEqualTo(400);
      assertThat(f.get("/v1/mesh/proof/inclusion?seq=99999999999999999999").status())
          .isEqualTo(400);
      Fixture.Answer far = f.get("/v1/mesh/proof/inclusion?seq=5&size=1");
      assertThat(far.status()).isEqualTo(404);
      assertThat(far.json().get("error").get("code").asText()).isEqualTo("out_of_range");
      assertThat(f.get("/v1/mesh/proof/consistency?from=0&to=1").status()).isEqualTo(404);
      assertThat(f.get("/v1/mesh/proof/consistency?from=1%2B1").status()).isEqualTo(400);
    }
  }

  @Test
  void aNumberPastTheSixtyFourBitRange_isRefusedAsTooLarge_namingTheLargest() {
    try (Fixture f = new Fixture()) {
      serve(f, "one");
      for (String past : List.of("9223372036854775808", "99999999999999999999")) {
        Fixture.Answer a = f.get("/v1/mesh/proof/inclusion?seq=" + past);
        assertThat(a.status()).as(past).isEqualTo(400);
        assertThat(a.json().get("error").get("message").asText())
            .as(past)
            .isEqualTo("seq is too large: the largest accepted is 9223372036854775807");
        assertThat(a.json().get("error").get("param").asText()).isEqualTo("seq");
      }
      Fixture.Answer largest = f.get("/v1/mesh/proof/inclusion?seq=9223372036854775807");
      assertThat(largest.status()).as("the largest is a number, outside the log").isEqualTo(404);
      assertThat(largest.json().get("error").get("code").asText()).isEqualTo("out_of_range");
      for (String query :
          List.of(
              "inclusion?seq=0&size=9223372036854775807",
              "consistency?from=9223372036854775807",
              "consistency?from=0&to=9223372036854775807")) {
        Fixture.Answer a = f.get("/v1/mesh/proof/" + query);
        assertThat(a.status()).as(query + ": " + a.body()).isEqualTo(404);
      }
      Fixture.Answer notANumber = f.get("/v1/mesh/proof/consistency?from=00");
      assertThat(notANumber.json().get("error").get("message").asText())
          .isEqualTo("from must be a non-negative decimal integer");
    }
  }

  @Test
  void outOfRangeRefusals_nameTheParameterAtFault() {
    try (Fixture f = new Fixture()) {
      serve(f, "one");
      serve(f, "two");
      f.get("/v1/mesh/checkpoint");
      assertThat(param(f.get("/v1/mesh/proof/inclusion?seq=5&size=1"))).isEqualTo("seq");
      assertThat(param(f.get("/v1/mesh/proof/inclusion?seq=0&size=99"))).isEqualTo("size");
      assertThat(param(f.get("/v1/mesh/proof/inclusion?seq=7"))).isEqualTo("seq");
      assertThat(param(f.get("/v1/mesh/proof/consistency?from=1&to=99"))).isEqualTo("to");
      assertThat(param(f.get("/v1/mesh/proof/consistency?from=0&to=1"))).isEqualTo("from");
      assertThat(param(f.get("/v1/mesh/proof/consistency?from=2&to=1"))).isEqualTo("from");
      assertThat(param(f.get("/v1/mesh/proof/consistency?from=99"))).isEqualTo("from");
    }
  }

  private static String param(Fixture.Answer a) {
    assertThat(a.status()).as(a.body()).isEqualTo(404);
    assertThat(a.json().get("error").get("code").asText()).isEqualTo("out_of_range");
    return a.json().get("error").get("param").asText();
  }

  @Test
  void witnessCosignature_isAcceptedAndServed_andAForgeryIs403() throws Exception {
    SigningKey witness = SigningKey.generate();
    NoteVerifierKey wk = new NoteVerifierKey("witness.example", witness.verificationKey());
    try (Fixture f = new Fixture(SigningKey.generate(), b -> b.witness(wk), s -> {})) {
      serve(f, "witnessed");
      SignedNote cp =
          SignedNote.parse(f.get("/v1/mesh/checkpoint").json().get("checkpoint").asText());
      NoteSignature line = SignedNote.sign(cp.text(), wk.name(), witness).signatures().get(0);
      byte[] bad = line.signature();
      bad[3] ^= 1;
      ObjectNode forged = Fixture.JSON.createObjectNode();
      forged.put("checkpoint", cp.with(new NoteSignature(wk.name(), wk.keyHash(), bad)).encoded());
      Fixture.Answer refused = f.post("/v1/mesh/checkpoint", forged);
      assertThat(refused.status()).as(refused.body()).isEqualTo(403);
      assertThat(refused.json().get("error").get("code").asText()).isEqualTo("bad_signature");
      ObjectNode genuine = Fixture.JSON.createObjectNode();
      genuine.put("checkpoint", cp.with(line).encoded());
      Fixture.Answer ok = f.post("/v1/mesh/checkpoint", genuine);
      assertThat(ok.status()).as(ok.body()).isEqualTo(200);
      SignedNote served =
          SignedNote.parse(f.get("/v1/mesh/checkpoint").json().get("checkpoint").asText());
      served.verify(wk);
      served.verify(Checkpoint.logKey(f.steward.identity()));
    }
  }

  /**
   * A checkpoint the steward signed that its log does not hold (here: a second journal under the
   * same key, as a journal restored from an older copy is) is evidence: 409 {@code
   * checkpoint_not_held}, not to be resent, and grants are refused from then on (SPEC.md §60.4).
   * One the log holds, another key's, and a note that is no checkpoint keep their answers and
   * suspend nothing.
   */
  @TempDir Path tmp;

  @Test
  void aCheckpointTheLogDoesNotHold_is409CheckpointNotHeld_andSuspendsGrants() throws Exception {
    SigningKey key = SigningKey.generate();
    SignedNote later;
    try (Fixture before = new Fixture(key, b -> {}, s -> {})) {
      for (int i = 0; i < 3; i++) {
        serve(before, "before " + i);
      }
      later = SignedNote.parse(before.get("/v1/mesh/checkpoint").json().get("checkpoint").asText());
    }
    // The same key over a durable journal that lacks those receipts.
    FileJournal restored = FileJournal.open(tmp.resolve("restored.journal"));
    try (Fixture f = new Fixture(key, b -> b.journal(restored), s -> {})) {
      serve(f, "after 0");
      SignedNote held =
          SignedNote.parse(f.get("/v1/mesh/checkpoint").json().get("checkpoint").asText());
      serve(f, "after 1");
      f.get("/v1/mesh/checkpoint");
      f.post("/v1/mesh/checkpoint", shown(held)).error(409, "checkpoint_mismatch");
      SigningKey other = SigningKey.generate();
      f.post(
              "/v1/mesh/checkpoint",
              shown(
                  new Checkpoint(f.steward.logKey().name(), 9, TreeHash.of(new byte[32]))
                      .sign(other)))
          .error(409, "checkpoint_mismatch");
      f.post(
              "/v1/mesh/checkpoint",
              shown(SignedNote.sign("no checkpoint\n", f.steward.logKey().name(), key)))
          .error(409, "checkpoint_mismatch");
      assertThat(f.get("/v1/mesh/steward").json().get("grants_honoured").asBoolean()).isTrue();

      Fixture.Answer refused = f.post("/v1/mesh/checkpoint", shown(later));
      assertThat(refused.error(409, "checkpoint_not_held").get("message").asText())
          .contains("restored from an older copy");
      assertThat(GrantedServeTest.shouldRetry(f, "/v1/mesh/checkpoint", shown(later)))
          .contains("false");
      assertThat(f.get("/v1/mesh/steward").json().get("grants_honoured").asBoolean()).isFalse();
      assertThat(f.steward.grantsSuspended()).isPresent();
    }
  }

  private static ObjectNode shown(SignedNote note) {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("checkpoint", note.encoded());
    return body;
  }
}
