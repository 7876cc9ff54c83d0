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
 *
 * <p>The checkpoint note's signature line was read the same lenient way, the line without its
 * {@code =} or with those bits set accepted as the signature it resembles; it too is now only the
 * text its signer writes, refused otherwise naming the line (SPEC 65, Checkpoints).
 */
class LogVerifyProofHashTextTest {
  @TempDir Path dir;

  private final SigningKey key = SigningKey.fromSeedHex("23".repeat(32));
  private final String did = Jcp.identity(key).value();

  /** Any bytes serve as the envelope: the log proves an envelope id, not what the bytes say. */
  private static final String ENVELOPE_HEX = "d28440a04040";

  /** The other leaf of a two-leaf log, the one hash on the envelope's audit path. */
  private final TreeHash sibling = TreeHash.leaf("another".getBytes(StandardCharsets.US_ASCII));

  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

  /** The steward's signed checkpoint of a two-leaf log holding the envelope, as it writes it. */
  private String note() {
    TreeHash leaf = InclusionProof.leafHash(Envelope.fromHex(ENVELOPE_HEX).id());
    return new Checkpoint(Checkpoint.originOf(Jcp.identity(key)), 2, TreeHash.node(leaf, sibling))
        .sign(key)
        .encoded();
  }

  private Run inclusion(String pathElement) throws Exception {
    return inclusion(note(), pathElement);
  }

  private Run inclusion(String note, String pathElement) throws Exception {
    Path checkpoint = Files.writeString(dir.resolve("checkpoint.txt"), note);
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
    assertRefused(
        r,
        "mesh log verify: a hash in proof file ",
        "is not the base64 of 32 bytes as the steward writes it",
        "\"" + element + "\"");
  }

  private static void assertRefused(Run r, String start, String fault, String named) {
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith(start).contains(fault).contains(named);
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
    // The 43rd digit carries 4 bits of the hash and 2 unused ones; setting the lowest changes the
    // text, not the bytes a lenient decoder reads.
    int digit = ALPHABET.indexOf(canonical.charAt(42)) | 1;
    String bitsSet = canonical.substring(0, 42) + ALPHABET.charAt(digit) + "=";
    assertThat(bitsSet).isNotEqualTo(canonical);
    assertRefusedNaming(inclusion(bitsSet), bitsSet);
  }

  /** The signature line's base64, between the name and the newline. */
  private static String signatureText(String note) {
    String line = note.substring(note.indexOf("\u2014 "), note.length() - 1);
    return line.substring(line.lastIndexOf(' ') + 1);
  }

  private static void assertSignatureRefusedNaming(Run r, String signature) {
    assertRefused(r, "mesh log verify: checkpoint file ", "is not standard base64", signature);
  }

  @Test
  void aCheckpointSignatureWithoutItsPadding_isRefused() throws Exception {
    String note = note();
    String canonical = signatureText(note);
    // 4 + 64 bytes: 92 digits, the last one '='.
    assertThat(canonical).hasSize(92).endsWith("=").doesNotEndWith("==");
    String unpadded = canonical.substring(0, 91);
    assertSignatureRefusedNaming(
        inclusion(note.replace(canonical, unpadded), sibling.base64()), unpadded);
  }

  @Test
  void aCheckpointSignatureWithTheUnusedBitsOfItsLastDigitSet_isRefused() throws Exception {
    String note = note();
    String canonical = signatureText(note);
    // The 91st digit carries 4 bits of the signature and 2 unused ones.
    int digit = ALPHABET.indexOf(canonical.charAt(90)) | 1;
    String bitsSet = canonical.substring(0, 90) + ALPHABET.charAt(digit) + "=";
    assertThat(bitsSet).isNotEqualTo(canonical);
    assertSignatureRefusedNaming(
        inclusion(note.replace(canonical, bitsSet), sibling.base64()), bitsSet);
  }
}
