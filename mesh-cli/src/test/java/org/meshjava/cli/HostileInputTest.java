package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.mesh;
import static org.meshjava.cli.MeshCommandTest.published;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.Steward;

/**
 * The commands as a hostile user drives them: cut, forged, oversized and endless inputs, files of
 * the wrong kind, a journal a running steward writes, configurations with NUL or megabytes in a
 * value. Each ends within a few seconds with one short line on stderr naming why and the exit
 * status its help documents (1: the input is refused), never a stack trace or an internal error.
 * The cases that write or read tens of megabytes are tagged {@code slow}, each with a fast one
 * beside it at the bound.
 */
class HostileInputTest {
  /**
   * The longest refusal line a test accepts: the name of what was refused, shortened if need be.
   */
  private static final int LONGEST_LINE = 2_000;

  @TempDir Path tmp;

  /** {@code mesh args}, which must end within 20 s refusing its input in one line. */
  private static Run refused(String command, String... args) {
    Run r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> mesh(args));
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err())
        .startsWith(command + ": ")
        .doesNotContain("internal error")
        .doesNotContain("\tat ");
    assertThat(r.err().length()).as("the line's length").isLessThan(LONGEST_LINE);
    return r;
  }

  private static String envelopeHex() throws Exception {
    return Files.readString(published("reference/envelope.hex")).strip();
  }

  /** A sparse file of {@code bytes} bytes: a large file made without writing it. */
  private Path sparse(String name, long bytes) throws Exception {
    Path f = tmp.resolve(name);
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
      raf.setLength(bytes);
    }
    return f;
  }

  @Test
  void verify_aTruncatedEnvelope_isRefused() throws Exception {
    String hex = envelopeHex();
    Path half = Files.writeString(tmp.resolve("half.hex"), hex.substring(0, hex.length() / 2));
    Path oddLength = Files.writeString(tmp.resolve("odd.hex"), hex.substring(1) + "\n");

    assertThat(refused("mesh verify", "verify", half.toString()).err()).contains(half.toString());
    assertThat(refused("mesh verify", "verify", oddLength.toString()).err())
        .contains(oddLength.toString());
  }

  @Test
  void verify_aForgedEnvelope_aBitFlippedInItsPayload_isRefused() throws Exception {
    char[] hex = envelopeHex().toCharArray();
    int i = hex.length / 2;
    hex[i] = hex[i] == '0' ? '1' : '0';
    Path forged = Files.writeString(tmp.resolve("forged.hex"), new String(hex) + "\n");

    assertThat(refused("mesh verify", "verify", forged.toString()).err()).contains("line 1");
  }

  @Test
  void verify_aLineOverTheBound_isRefused_namingIt() throws Exception {
    Path longLine =
        Files.writeString(
            tmp.resolve("long.hex"), "ab".repeat((1 << 19) + 1) + "\n" + envelopeHex());

    assertThat(refused("mesh verify", "verify", longLine.toString()).err()).contains("line 1");
  }

  @Test
  @Tag("slow")
  void verify_aFileOf65Megabytes_isRefused() throws Exception {
    refused("mesh verify", "verify", sparse("huge.hex", 65L << 20).toString());
  }

  @Test
  void verify_aFolder_orAnEndlessDevice_isRefused() throws Exception {
    refused("mesh verify", "verify", tmp.toString());
    Path zero = Path.of("/dev/zero");
    assumeTrue(Files.exists(zero));
    refused("mesh verify", "verify", zero.toString());
  }

  @Test
  void journalVerify_ofAJournalARunningStewardWrites_readsWhatIsThere() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    try (Steward s =
        ReferenceSteward.builder(SigningKey.generate(), FileJournal.open(journal)).build()) {
      var req = ReferenceSteward.request("one");
      s.serve(req, ReferenceSteward.payload(req));

      Run r =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20), () -> mesh("journal", "verify", journal.toString()));
      assertThat(r.code()).as(r.err()).isZero();
      Run inspect = mesh("journal", "inspect", journal.toString());
      assertThat(inspect.code()).as(inspect.err()).isZero();

      var again = ReferenceSteward.request("two");
      s.serve(again, ReferenceSteward.payload(again));
    }
  }

  /**
   * The arguments of {@code mesh grant issue} of a root grant by {@code issuerKey} to {@code did}.
   */
  private static String[] issue(Path issuerKey, String did, Path out) {
    return new String[] {
      "grant",
      "issue",
      "--issuer-key",
      issuerKey.toString(),
      "--subject",
      did,
      "--budget-uj",
      "1000000",
      "--expires",
      "PT1H",
      "--out",
      out.toString()
    };
  }

  @Test
  void grant_aKeyOfTheWrongKind_isNamedAsWhatItIs() throws Exception {
    Path envelopes = Files.writeString(tmp.resolve("receipts.hex"), envelopeHex() + "\n");
    Path key = tmp.resolve("c.key");
    String did = mesh("key", "generate", "--out", key.toString()).out().strip();

    Run r = refused("mesh grant issue", issue(envelopes, did, tmp.resolve("g.hex")));
    assertThat(r.err()).contains(envelopes.toString());
    assertThat(tmp.resolve("g.hex")).doesNotExist();
  }

  @Test
  @Tag("slow")
  void grantPresent_aBodyOf100Megabytes_isRefused() throws Exception {
    Path key = tmp.resolve("c.key");
    String did = mesh("key", "generate", "--out", key.toString()).out().strip();
    Path chain = tmp.resolve("root.hex");
    Run issued = mesh(issue(key, did, chain));
    assertThat(issued.code()).as(issued.err()).isZero();
    Path body = sparse("body.json", 100L << 20);

    Run r =
        refused(
            "mesh grant present",
            "grant",
            "present",
            "--caller-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--body",
            body.toString(),
            "--out",
            tmp.resolve("p.hex").toString());
    assertThat(r.err()).contains(body.toString());
    assertThat(tmp.resolve("p.hex")).doesNotExist();
  }

  /** {@code mesh serve --config} of {@code json}, refused before anything starts. */
  private Run serveRefuses(String json) throws Exception {
    Path config = Files.writeString(tmp.resolve("serve.json"), json, StandardCharsets.UTF_8);
    return refused("mesh serve", "serve", "--config", config.toString());
  }

  @Test
  void serveConfig_unknownOrDuplicateKeys_areRefused() throws Exception {
    assertThat(serveRefuses("{\"jornal\": \"a.journal\"}").err()).contains("jornal");
    assertThat(serveRefuses("{\"port\": 1, \"port\": 2}").err()).contains("port");
  }

  /**
   * Regression: a NUL in a configuration's path was refused in the JDK's words, "Nul character not
   * allowed: a", the NUL itself and "b" printed raw in the line, naming no key. The key is named,
   * in backends too, and the NUL is not printed.
   */
  @Test
  void serveConfig_aNulInAPath_isRefused_namingItsKey() throws Exception {
    for (String key : List.of("journal", "key_file", "revocations")) {
      assertThat(serveRefuses("{\"" + key + "\": \"a\\u0000b\"}").err())
          .as(key)
          .contains(": " + key + " holds a NUL character")
          .doesNotContain("\0");
    }
    assertThat(
            serveRefuses("{\"backends\": [{\"type\": \"minilm\", \"model_dir\": \"m\\u0000\"}]}")
                .err())
        .contains(": backends[0].model_dir holds a NUL character");
  }

  /**
   * Regression: a path of 10 MB in a configuration was opened (after seconds of the JVM's own work
   * on it) and echoed whole in the refusal, a line of 10 MB; a key of that length would be echoed
   * too. Every key and text value is bounded by Linux's longest path, and the refusal shows only
   * its length, or a key's first characters. The 10 MB case itself is {@link
   * #serveConfig_aValueOrKeyOfTenMegabytes_isRefused_inAShortLine}.
   */
  @Test
  void serveConfig_aValueOrKeyOverTheBound_isRefused_inAShortLine() throws Exception {
    for (String key : List.of("journal", "key_file", "host", "revocations")) {
      assertThat(serveRefuses("{\"" + key + "\": \"" + "a".repeat(4_097) + "\"}").err())
          .as(key)
          .isEqualTo(
              "mesh serve: "
                  + tmp.resolve("serve.json")
                  + ": "
                  + key
                  + " is 4097 characters long; no setting takes more than 4096\n");
    }
    assertThat(serveRefuses("{\"" + "a".repeat(5_000) + "\": 1}").err())
        .contains(": the key 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…' is 5000 characters long");
  }

  /**
   * Regression: a key within the bound was echoed whole, thousands of characters and its control
   * characters raw: by the refusal of an unknown key (at the top, in a backend, in snapshots), and
   * in the place a value's refusal names, once for every key above it. A key is shown by its first
   * 40 characters, '?' for each control character.
   */
  @Test
  void serveConfig_aLongKeyOrOneWithControlCharacters_isShownShortened() throws Exception {
    String key = "a".repeat(4_000);
    String shown = "a".repeat(40) + "…";
    assertThat(serveRefuses("{\"" + key + "\": 1}").err()).contains("unknown key '" + shown + "'");
    assertThat(serveRefuses("{\"backends\": [{\"" + key + "\": 1}]}").err())
        .contains("unknown key '" + shown + "'");
    assertThat(serveRefuses("{\"snapshots\": {\"" + key + "\": 1}}").err())
        .contains("unknown key '" + shown + "'");
    assertThat(
            serveRefuses("{\"backends\": [{\"" + key + "\": {\"" + key + "\": \"\\u0000\"}}]}")
                .err())
        .contains(": backends[0]." + shown + "." + shown + " holds a NUL character");
    assertThat(serveRefuses("{\"x\\u001b[2J\": {\"y\": \"\\u0000\"}}").err())
        .contains(": x?[2J.y holds a NUL character")
        .doesNotContain("\u001b");
  }

  @Test
  @Tag("slow")
  void serveConfig_aValueOrKeyOfTenMegabytes_isRefused_inAShortLine() throws Exception {
    String big = "a".repeat(10 << 20);
    assertThat(serveRefuses("{\"journal\": \"" + big + "\"}").err())
        .endsWith(": journal is 10485760 characters long; no setting takes more than 4096\n");
    // A key of 10 MB is refused by the JSON parser's own bound (50 000 characters).
    serveRefuses("{\"" + big + "\": 1}");
  }
}
