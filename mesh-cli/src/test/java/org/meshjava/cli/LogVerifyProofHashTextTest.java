package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
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
 * Regression: {@code mesh log verify} decoded a proof's path hashes with Java's lenient base64
 * decoder, so a hash without its {@code =}, or with the unused low bits of its last digit set, was
 * read as the hash it resembles and the proof accepted. Each hash is now the one text the steward
 * writes for it (SPEC 65, Endpoints), as the proof's numbers are read strictly.
 */
class LogVerifyProofHashTextTest {
  @TempDir Path dir;

  private final SigningKey key = SigningKey.fromSeedHex("23".repeat(32));
  private final String did = Jcp.identity(key).value();

  /** Any bytes serve as the envelope: the log proves an envelope id, not what the bytes say. */
  private static final String ENVELOPE_HEX = "d28440a04040";

  /** The other leaf of a two-leaf log, the one hash on the envelope's audit path. */
  private final TreeHash sibling = TreeHash.leaf("another".getBytes(StandardCharsets.US_ASCII));

  private Run inclusion(String pathElement) throws Exception {
    TreeHash leaf = InclusionProof.leafHash(Envelope.fromHex(ENVELOPE_HEX).id());
    Checkpoint c =
        new Checkpoint(Checkpoint.originOf(Jcp.identity(key)), 2, TreeHash.node(leaf, sibling));
    Path checkpoint = Files.writeString(dir.resolve("checkpoint.txt"), c.sign(key).encoded());
    Path env = Files.writeString(dir.resolve("envelope.hex"), ENVELOPE_HEX + "\n");
    Path proof =
        Files.writeString(
            dir.resolve("inclusion.json"),
            "{\"leaf_index\":0,\"tree_size\":2,\"path\":[\"" + pathElement + "\"]}");
    return mesh(
        "log",
        "verify",
        "--steward=" + did,
        "--checkpoint=" + checkpoint,
        "--envelope=" + env,
        "--proof=" + proof);
  }

  private static void assertRefusedNaming(Run r, String element) {
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .startsWith("mesh log verify: a hash in proof file ")
        .contains("is not the base64 of 32 bytes as the steward writes it")
        .contains("\"" + element + "\"");
  }

  @Test
  void theHashAsTheStewardWritesIt_verifies() throws Exception {
    Run r = inclusion(sibling.base64());
    assertThat(r.code()).as(r.err()).isZero();
  }

  @Test
  void aHashWithoutItsPadding_isRefused() throws Exception {
    String unpadded = sibling.base64().substring(0, 43);
    assertRefusedNaming(inclusion(unpadded), unpadded);
  }

  @Test
  void aHashWithTheUnusedBitsOfItsLastDigitSet_isRefused() throws Exception {
    String canonical = sibling.base64();
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    // The 43rd digit carries 4 bits of the hash and 2 unused ones; setting the lowest changes the
    // text, not the bytes a lenient decoder reads.
    int digit = alphabet.indexOf(canonical.charAt(42)) | 1;
    String bitsSet = canonical.substring(0, 42) + alphabet.charAt(digit) + "=";
    assertThat(bitsSet).isNotEqualTo(canonical);
    assertRefusedNaming(inclusion(bitsSet), bitsSet);
  }
}
