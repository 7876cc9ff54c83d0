package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.Steward;

/**
 * {@code mesh journal verify} checks the transparency log's journalled checkpoints (SPEC.md §65): a
 * journal rewritten and re-hashed, whose record chain is whole again, is refused because its
 * receipts no longer reproduce the steward's signed checkpoint.
 */
class JournalVerifyCheckpointsTest {
  private static final Pattern PREV = Pattern.compile("\"prev\":\"([0-9a-f]{64})\"");

  @TempDir Path dir;

  private Path journal(SigningKey key, int receipts) throws Exception {
    Path file = dir.resolve("steward.journal");
    try (Steward s =
        ReferenceSteward.builder(key, FileJournal.open(file)).checkpointEvery(3).build()) {
      for (int i = 0; i < receipts; i++) {
        ServeRequest req = ReferenceSteward.request("journal " + i);
        s.serve(req, ReferenceSteward.payload(req));
      }
    }
    return file;
  }

  /**
   * Recomputes every record's {@code prev} from {@code from} on, as an attacker without the key.
   */
  static void rehash(List<String> lines, int from) {
    for (int i = Math.max(from, 1); i < lines.size(); i++) {
      String prev = ContentId.ofBytes(lines.get(i - 1).getBytes(StandardCharsets.UTF_8)).hex();
      lines.set(
          i,
          PREV.matcher(lines.get(i))
              .replaceFirst(Matcher.quoteReplacement("\"prev\":\"" + prev + "\"")));
    }
  }

  @Test
  void checkpointsReproduced_areReported() throws Exception {
    Path file = journal(SigningKey.generate(), 4);
    Run ok = mesh("journal", "verify", file.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    // Every 3 receipts, and on close: sizes 3 and 4.
    assertThat(ok.out()).contains("2 signed checkpoints reproduced by its receipts");
  }

  @Test
  void rewrittenAndRehashedJournal_isRefused_citingTheCheckpoint() throws Exception {
    SigningKey key = SigningKey.generate();
    Path file = journal(key, 5);
    List<String> lines = new ArrayList<>(Files.readAllLines(file));
    int edited = -1;
    for (int i = 0, seen = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("\"type\":\"Sealed\"") && seen++ == 1) {
        edited = i;
      }
    }
    String forged =
        ContentId.ofBytes("a receipt never sealed".getBytes(StandardCharsets.UTF_8)).hex();
    lines.set(
        edited,
        lines
            .get(edited)
            .replaceFirst("\"envelope_id\":\"[0-9a-f]+\"", "\"envelope_id\":\"" + forged + "\""));
    rehash(lines, edited + 1);
    Path copy = dir.resolve("rewritten.journal");
    Files.write(copy, lines);
    int checkpoint = -1;
    for (int i = edited; i < lines.size() && checkpoint < 0; i++) {
      if (lines.get(i).contains("\"type\":\"Checkpoint\"")) {
        checkpoint = i;
      }
    }

    Run bad = mesh("journal", "verify", "--steward", did(key), copy.toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err())
        .startsWith("mesh journal verify: ")
        .contains("journal record " + checkpoint)
        .contains("checkpoint the journal's receipts do not reproduce");
  }

  @Test
  void grantedServeStrippedAndDebitEdited_thenRehashed_isRefusedByTheJournalSeal()
      throws Exception {
    SigningKey key = SigningKey.generate();
    SigningKey caller = SigningKey.generate();
    java.time.Instant now =
        java.time.Instant.ofEpochSecond(java.time.Instant.now().getEpochSecond());
    org.meshjava.jcp.GrantChain chain =
        org.meshjava.jcp.Jcp.issueRoot(
            caller,
            org.meshjava.jcp.Jcp.identity(key),
            10_000_000,
            now.minusSeconds(60),
            now.plusSeconds(3600));
    Path file = dir.resolve("granted.journal");
    try (Steward s =
        ReferenceSteward.builder(key, FileJournal.open(file))
            .clock(java.time.InstantSource.fixed(now))
            .build()) {
      ServeRequest req = ReferenceSteward.request("granted");
      s.serve(req, ReferenceSteward.payload(req), org.meshjava.jcp.Jcp.present(caller, chain, req));
    } // the closing checkpoint follows the serve
    Run ok = mesh("journal", "verify", "--steward", did(key), file.toString());
    assertThat(ok.code()).as(ok.err()).isZero();

    List<String> lines = new ArrayList<>(Files.readAllLines(file));
    int debited = -1;
    int sealed = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (debited < 0 && lines.get(i).contains("\"type\":\"Debited\"")) {
        debited = i;
      }
      if (sealed < 0 && lines.get(i).contains("\"type\":\"Sealed\"")) {
        sealed = i;
      }
    }
    assertThat(lines.get(sealed)).contains("\"envelope\":");
    lines.set(
        debited,
        lines
            .get(debited)
            .replaceFirst("\"estimated_uj\":[0-9]+", "\"estimated_uj\":1")
            .replaceFirst("\"measured_uj\":[0-9]+", "\"measured_uj\":1")
            .replaceFirst("\"debited_uj\":[0-9]+", "\"debited_uj\":1"));
    lines.set(
        sealed,
        lines
            .get(sealed)
            .replaceFirst(",\"authorised\":[0-9]+", "")
            .replaceFirst(",\"envelope\":\"[0-9a-f]+\"", ""));
    rehash(lines, debited + 1);
    Path copy = dir.resolve("stripped.journal");
    Files.write(copy, lines);
    int checkpoint = lines.size() - 1;
    assertThat(lines.get(checkpoint)).contains("\"type\":\"Checkpoint\"");

    Run bad = mesh("journal", "verify", "--steward", did(key), copy.toString());
    assertThat(bad.code()).as(bad.out()).isEqualTo(1);
    assertThat(bad.err())
        .contains("journal record " + checkpoint)
        .contains("checkpoint's journal seal does not verify: records before it were changed");
  }

  @Test
  void checkpointSignedByAnotherKey_isRefused() throws Exception {
    SigningKey key = SigningKey.generate();
    Path file = journal(key, 3);
    Run bad = mesh("journal", "verify", "--steward", did(SigningKey.generate()), file.toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).contains("checkpoint the steward did not sign");
  }

  private static String did(SigningKey key) {
    return org.meshjava.core.identity.DidKey.of(key.verificationKey()).value();
  }
}
