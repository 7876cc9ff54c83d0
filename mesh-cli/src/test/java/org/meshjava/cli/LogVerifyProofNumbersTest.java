package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Jcp;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * Regression: {@code mesh log verify} read a proof file's {@code leaf_index}, {@code tree_size},
 * {@code from} and {@code to} with Jackson's lenient {@code asLong}, so a number past the 64-bit
 * range wrapped ({@code 18446744073709551616} became leaf 0), a fraction was cut ({@code 0.5}
 * became 0), a string was parsed, and of a key written twice the last won. A leaf index at or past
 * the tree's size must fail (RFC 9162 §2.1.3.2, which SPEC 65 adopts), and a proof that names
 * another leaf is not a proof of this one. Each is now refused naming the field.
 */
class LogVerifyProofNumbersTest {
  @TempDir Path dir;

  private final SigningKey key = SigningKey.fromSeedHex("22".repeat(32));
  private final String did = Jcp.identity(key).value();

  /** Any bytes serve as the envelope: the log proves an envelope id, not what the bytes say. */
  private static final String ENVELOPE_HEX = "d28440a04040";

  private final Envelope envelope = Envelope.fromHex(ENVELOPE_HEX);

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  /** The steward's checkpoint of a log holding {@link #envelope} alone. */
  private Path checkpoint() throws Exception {
    TreeHash root = InclusionProof.leafHash(envelope.id());
    Checkpoint c = new Checkpoint(Checkpoint.originOf(Jcp.identity(key)), 1, root);
    return write("checkpoint.txt", c.sign(key).encoded());
  }

  private Run inclusion(String proofJson) throws Exception {
    Path proof = write("inclusion.json", proofJson);
    Path env = write("envelope.hex", ENVELOPE_HEX + "\n");
    return mesh(
        "log",
        "verify",
        "--steward=" + did,
        "--checkpoint=" + checkpoint(),
        "--envelope=" + env,
        "--proof=" + proof);
  }

  private Run consistency(String proofJson) throws Exception {
    Path proof = write("consistency.json", proofJson);
    Path c = checkpoint();
    return mesh(
        "log", "verify", "--steward=" + did, "--checkpoint=" + c, "--old=" + c, "--proof=" + proof);
  }

  private static void assertRefused(Run r, String field) {
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("mesh log verify: ").contains(field);
  }

  @Test
  void theHonestProofs_verify() throws Exception {
    Run in = inclusion("{\"sequence\":0,\"leaf_index\":0,\"tree_size\":1,\"path\":[]}");
    assertThat(in.code()).as(in.err()).isZero();
    Run con = consistency("{\"from\":1,\"to\":1,\"path\":[]}");
    assertThat(con.code()).as(con.err()).isZero();
  }

  @Test
  void aLeafIndexPastTheLongRange_isRefused_notWrappedToLeafZero() throws Exception {
    assertRefused(
        inclusion("{\"leaf_index\":18446744073709551616,\"tree_size\":1,\"path\":[]}"),
        "leaf_index");
  }

  @Test
  void aFractionOrAStringWhereAnIntegerIsDue_isRefused() throws Exception {
    assertRefused(inclusion("{\"leaf_index\":0.5,\"tree_size\":1,\"path\":[]}"), "leaf_index");
    assertRefused(inclusion("{\"leaf_index\":\"0\",\"tree_size\":1,\"path\":[]}"), "leaf_index");
    assertRefused(consistency("{\"from\":1.0,\"to\":1,\"path\":[]}"), "from");
    assertRefused(consistency("{\"from\":1,\"to\":18446744073709551617,\"path\":[]}"), "to");
  }

  @Test
  void aKeyWrittenTwice_isRefused_notReadAsTheLastOne() throws Exception {
    assertRefused(
        inclusion("{\"leaf_index\":7,\"leaf_index\":0,\"tree_size\":1,\"path\":[]}"), "leaf_index");
  }
}
