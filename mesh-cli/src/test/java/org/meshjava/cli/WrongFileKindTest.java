package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * A command handed another kind of mesh file (a new user's commonest slip: {@code mesh verify}
 * given the key, the grant, the journal, a receipt copied as JSON; {@code mesh grant show} given a
 * key) says what the file looks like and which command reads it, in one line, rather than the
 * decoder's word for bytes never meant for it ({@code NOT_CANONICAL_CBOR}, {@code LENGTH_LIMIT},
 * {@code not lowercase hex}).
 */
class WrongFileKindTest {
  @TempDir Path tmp;
  private Path journal;
  private ServeResult served;

  @BeforeEach
  void serveOnce() throws Exception {
    journal = tmp.resolve("steward.journal");
    try (Steward s =
        ReferenceSteward.builder(SigningKey.generate(), FileJournal.open(journal)).build()) {
      var req = ReferenceSteward.request("one");
      served = s.serve(req, ReferenceSteward.payload(req));
    }
  }

  private static String refusal(Path file) {
    Run r = mesh("verify", file.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err())
        .startsWith("mesh verify: " + file + " holds no envelopes: it looks like ")
        .doesNotContain("NOT_CANONICAL_CBOR")
        .doesNotContain("not lowercase hex");
    return r.err();
  }

  @Test
  void aKeyFile_isNamedAsAKey() throws Exception {
    Path key = tmp.resolve("steward.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    assertThat(refusal(key)).contains("a key file").contains("mesh key show");
  }

  @Test
  void aGrantChain_isNamedAsAGrant() throws Exception {
    Path issuer = tmp.resolve("caller.key");
    assertThat(mesh("key", "generate", "--out", issuer.toString()).code()).isZero();
    Path grant = tmp.resolve("grant.hex");
    Run issued =
        mesh(
            "grant",
            "issue",
            "--issuer-key",
            issuer.toString(),
            "--subject",
            served.receipt().steward().value(),
            "--budget-uj",
            "1000",
            "--expires",
            "PT1H",
            "--out",
            grant.toString());
    assertThat(issued.code()).as(issued.err()).isZero();
    assertThat(refusal(grant)).contains("a grant chain").contains("mesh grant show");
  }

  @Test
  void grantShow_givenAKeyFile_namesTheKey() throws Exception {
    Path key = tmp.resolve("caller.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    Run r = mesh("grant", "show", "--chain", key.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "mesh grant show: "
                + key
                + " is not a grant chain: it looks like a key file (an Ed25519 seed, 64 hex"
                + " digits); mesh key show reads it");
  }

  @Test
  void keyShow_givenEnvelopes_namesThem() throws Exception {
    Path envelopes =
        Files.writeString(tmp.resolve("envelopes.hex"), served.envelope().hex() + "\n");
    Run r = mesh("key", "show", "--key", envelopes.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "mesh key show: key file "
                + envelopes
                + " does not hold a key: it looks like receipt envelopes (one hex envelope a"
                + " line); mesh verify reads them");
  }

  @Test
  void aJournal_isNamedAsAJournal() {
    assertThat(refusal(journal)).contains("journal").contains("mesh journal inspect|verify");
  }

  @Test
  void aReceiptAsJson_pointsAtTheEnvelopeHex() throws Exception {
    Path json =
        Files.writeString(
            tmp.resolve("receipt.json"), ReceiptJson.of(served.receipt()).toString() + "\n");
    assertThat(refusal(json)).contains("a receipt as JSON").contains("envelope_hex");
  }

  @Test
  void aServedReply_pointsAtItsEnvelopeHex() throws Exception {
    Path json =
        Files.writeString(
            tmp.resolve("reply.json"),
            "{\"object\":\"chat.completion\",\"usage\":{\"energy\":{\"envelope_hex\":\""
                + served.envelope().hex()
                + "\"}}}\n");
    assertThat(refusal(json)).contains("a served reply").contains("usage.energy.envelope_hex");
  }

  @Test
  void otherJson_isNamedAsJson() throws Exception {
    Path json = Files.writeString(tmp.resolve("body.json"), "{\n  \"model\": \"tiny\"\n}\n");
    assertThat(refusal(json)).contains("looks like JSON");
  }

  @Test
  void theRealEnvelopes_stillVerify_andDamageIsStillNamedByLine() throws Exception {
    String hex = served.envelope().hex();
    Path good = Files.writeString(tmp.resolve("envelopes.hex"), hex + "\n");
    Run ok = mesh("verify", good.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    // A damaged envelope is not another kind of file: its refusal stays the decoder's, by line.
    // The last digit changed to another, never to what it may already be (a last byte of 00 was
    // once "damaged" to 00, and the copy verified).
    char last = hex.charAt(hex.length() - 1);
    String damaged = hex.substring(0, hex.length() - 1) + (last == '0' ? '1' : '0');
    assertThat(damaged).isNotEqualTo(hex);
    Path bad = Files.writeString(tmp.resolve("damaged.hex"), damaged + "\n");
    Run r = mesh("verify", bad.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains(bad + " line 1: ").doesNotContain("looks like");
  }
}
