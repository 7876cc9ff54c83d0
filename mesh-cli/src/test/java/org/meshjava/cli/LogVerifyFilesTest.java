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
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * Regression: {@code mesh log verify} reads up to four files (--checkpoint, --old, --proof,
 * --envelope), and its refusals of their contents did not say which: a malformed or unsigned
 * checkpoint was "MALFORMED_NOTE: …" whether it was --checkpoint or --old, a bad proof "the proof
 * file is not JSON", and an empty envelope file was taken for an envelope of no bytes (its proof
 * then "did not verify"). Each refusal now names its file.
 */
class LogVerifyFilesTest {
  @TempDir Path dir;

  private final SigningKey key = SigningKey.fromSeedHex("11".repeat(32));
  private final String did = Jcp.identity(key).value();

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  /** A checkpoint of a one-receipt log, signed as the steward {@link #did} signs it. */
  private Path checkpoint(String name) throws Exception {
    Checkpoint c = new Checkpoint(Checkpoint.originOf(Jcp.identity(key)), 1, TreeHash.empty());
    return write(name, c.sign(key).encoded());
  }

  private Run verify(String... more) {
    String[] args = new String[3 + more.length];
    args[0] = "log";
    args[1] = "verify";
    args[2] = "--steward=" + did;
    System.arraycopy(more, 0, args, 3, more.length);
    return mesh(args);
  }

  /** {@code mesh log verify} of a consistency proof between {@code old} and {@code checkpoint}. */
  private Run consistency(Path checkpoint, Path proof, Path old) {
    return verify("--checkpoint=" + checkpoint, "--proof=" + proof, "--old=" + old);
  }

  private static void assertRefused(Run r, String message) {
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("mesh log verify: " + message);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aCheckpointThatDoesNotOpen_isNamed_asCheckpointOrAsOld() throws Exception {
    Path good = checkpoint("new.txt");
    assertThat(verify("--checkpoint", good.toString()).code()).isZero();
    Path empty = write("empty.txt", "");
    String malformed = "checkpoint file " + empty + ": MALFORMED_NOTE: no signature block";
    assertRefused(verify("--checkpoint", empty.toString()), malformed + " after a blank line");
    Path proof = write("proof.json", "{\"from\":1,\"to\":1,\"path\":[]}");
    assertRefused(consistency(good, proof, empty), malformed + " after a blank line");
  }

  @Test
  void aProofFileThatIsNotAProof_isNamed() throws Exception {
    Path good = checkpoint("new.txt");
    Path old = checkpoint("old.txt");
    Path notJson = write("a.json", "[");
    Run r = consistency(good, notJson, old);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("mesh log verify: proof file " + notJson + " is not JSON: ");
    Path array = write("b.json", "[]");
    assertRefused(consistency(good, array, old), "proof file " + array + " is not a JSON object");
    Path noPath = write("c.json", "{}");
    assertRefused(consistency(good, noPath, old), "proof file " + noPath + " has no path array");
    Path badHash = write("d.json", "{\"path\":[\"AAAA\"]}");
    assertRefused(
        consistency(good, badHash, old),
        "a hash in proof file "
            + badHash
            + " is not the base64 of 32 bytes as the steward writes it (standard alphabet, '='"
            + " padding, unused bits zero): \"AAAA\"");
  }

  @Test
  void anEmptyEnvelopeFile_isRefused_notTakenForAnEnvelopeOfNoBytes() throws Exception {
    Path good = checkpoint("new.txt");
    Path proof = write("proof.json", "{\"leaf_index\":0,\"tree_size\":1,\"path\":[]}");
    Path empty = write("envelope.hex", "\n");
    assertRefused(
        verify("--checkpoint=" + good, "--proof=" + proof, "--envelope=" + empty),
        empty + " does not hold a hex envelope (it is empty)");
  }
}
