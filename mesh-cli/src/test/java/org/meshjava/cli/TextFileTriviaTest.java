package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;
import static org.meshjava.cli.MeshCommandTest.published;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * How the text files a command reads may be written by hand or by other tools: with a byte order
 * mark first (Windows editors), and where a line of a file of many is wrong, the refusal names it.
 */
class TextFileTriviaTest {
  @TempDir Path tmp;

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private Path withBom(String name, byte[] text) throws Exception {
    byte[] bytes = new byte[BOM.length + text.length];
    System.arraycopy(BOM, 0, bytes, 0, BOM.length);
    System.arraycopy(text, 0, bytes, BOM.length, text.length);
    return Files.write(tmp.resolve(name), bytes);
  }

  /**
   * Regression: a byte order mark, invisible in the editor that wrote it, made a key file that
   * looks right "not a 64-hex-digit seed" and an envelope file's first envelope "not hex".
   */
  @Test
  void aByteOrderMarkFirst_isNoPartOfTheText() throws Exception {
    String seed = "11".repeat(32);
    Path plain = Files.writeString(tmp.resolve("plain.key"), seed + "\n");
    Path marked = withBom("marked.key", (seed + "\n").getBytes(StandardCharsets.US_ASCII));
    Run expected = mesh("key", "show", "--key", plain.toString());
    assertThat(expected.code()).as(expected.err()).isZero();
    Run r = mesh("key", "show", "--key", marked.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo(expected.out());

    Path envelopes =
        withBom("envelopes.hex", Files.readAllBytes(published("reference/envelope.hex")));
    Run verified = mesh("verify", "--from-genesis", envelopes.toString());
    assertThat(verified.code()).as(verified.err()).isZero();
    assertThat(verified.out()).contains("verified 1 receipt,");
  }

  @Test
  void aByteOrderMarkElsewhere_isStillRefused() throws Exception {
    String seed = "11".repeat(32);
    Path key =
        Files.writeString(
            tmp.resolve("k.key"), seed.substring(0, 2) + "\uFEFF" + seed.substring(2));
    Run r = mesh("key", "show", "--key", key.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("does not hold a key: an Ed25519 seed is 64 lowercase hex digits");
  }

  /**
   * Regression: blank lines in an envelope file were skipped without a word. They hold no envelope
   * and cannot hide one (the chain links each envelope to the one before it), so they are passed
   * over, but the result counts them, across every file, and a file without any says nothing.
   */
  @Test
  void verify_blankLines_arePassedOverAndCounted() throws Exception {
    String good = Files.readString(published("reference/envelope.hex")).strip();
    Path f = Files.writeString(tmp.resolve("e.hex"), "\n" + good + "\n  \n\n");
    Run r = mesh("verify", "--from-genesis", f.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("verified 1 receipt,").endsWith("; passed over 3 blank lines\n");

    Path plain = Files.writeString(tmp.resolve("plain.hex"), good + "\n");
    Run clean = mesh("verify", "--from-genesis", plain.toString());
    assertThat(clean.out()).doesNotContain("blank");
  }

  /**
   * Regression: a line of an envelope file that is not hex was "envelope 1 in FILE is not hex",
   * which numbers envelopes from 0 across every file, not the line to look at; every other refusal
   * of {@code mesh verify} names the file and line.
   */
  @Test
  void verify_aLineThatIsNotHex_isNamedByFileAndLine() throws Exception {
    String good = Files.readString(published("reference/envelope.hex")).strip();
    Path f = Files.writeString(tmp.resolve("e.hex"), good + "\n\nnot hex\n");
    Run r = mesh("verify", f.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "mesh verify: " + f + " line 3: envelope 1 is not lowercase hex: 'n' at index 0");
  }
}
