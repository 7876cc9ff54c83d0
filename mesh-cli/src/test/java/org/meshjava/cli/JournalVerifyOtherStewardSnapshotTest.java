package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.testing.ChildJava;

/**
 * A journal whose latest snapshot was replaced by another steward's (a snapshot folder shared or
 * copied) is refused by {@code mesh journal verify} with the reason a start gives, {@code
 * OTHER_STEWARD} (SPEC.md §60.8), not as a signature or record that fails when checked under the
 * snapshot's steward's key. The slow {@link FileJournalTamperingTest} holds the first case among
 * its edits; these run in the default suite, with the journal whole and with its first records
 * archived into segments.
 */
class JournalVerifyOtherStewardSnapshotTest {
  @TempDir Path dir;

  private static void assertOtherStewardNamed(History h) throws Exception {
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.err()).isEqualTo(1);
    assertThat(verify.err())
        .as(verify.err())
        .containsIgnoringCase("OTHER_STEWARD")
        .doesNotContainIgnoringCase("bad_signature");
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    assertThat(start.err())
        .as(start.err())
        .containsIgnoringCase("OTHER_STEWARD")
        .doesNotContain("cannot listen");
  }

  @Test
  void verify_ofAJournalWhoseLatestSnapshotIsAnotherStewards_namesOtherSteward_asAStartDoes()
      throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    History other = new History(dir, SigningKey.generate(), "other").serve(3, "other");
    h.replaceLatestSnapshot(other.latestSnapshot());
    assertOtherStewardNamed(h);
  }

  @Test
  void verify_ofAnArchivedJournalWhoseLatestSnapshotIsAnotherStewards_namesOtherSteward()
      throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted").archive();
    h.serve(2, "later");
    History other = new History(dir, SigningKey.generate(), "other").serve(3, "other");
    h.replaceLatestSnapshot(other.latestSnapshot());
    assertOtherStewardNamed(h);
  }

  /**
   * Regression: with the segments gone, only the snapshot named a steward, and verify took it at
   * its word: the live file then failed to follow it ("journal record 11: does not follow position
   * 11 ...; it is not in this journal's history", POSITION_MISMATCH), while a start, which knows
   * its key, refused the snapshot as OTHER_STEWARD. The live file's checkpoints now name the
   * steward.
   *
   * <p>Regression too: those checkpoints were read through a descriptor of verify's own, opened and
   * closed on the caller's thread; run in the JVM that holds the journal (an embedder, a test), the
   * close let the holder's OS lock go (POSIX record locks are the process's, released by any
   * close), and another process then opened the journal as a second writer. Only a second process
   * shows whether the lock is still held.
   */
  @Test
  void verify_ofAnArchivedJournalWithoutSegments_whoseLatestSnapshotIsAnotherStewards_namesIt()
      throws Exception {
    History h = History.archivedWithoutSegments(dir);
    History other = new History(dir, SigningKey.generate(), "other").serve(3, "other");
    h.replaceLatestSnapshot(other.latestSnapshot());
    assertOtherStewardNamed(h);
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.err()).contains("the live file's checkpoints name");
    try (FileJournal held = FileJournal.open(h.journal)) {
      Run inHolder = mesh("journal", "verify", h.journal.toString());
      assertThat(inHolder.err()).as(inHolder.err()).contains("the live file's checkpoints name");
      assertThat(openInAnotherProcess(h.journal))
          .as("another process opening the journal this one holds")
          .isEqualTo("LOCKED");
    }
  }

  /** What {@link Opener} answers, run in a JVM of its own on {@code journal}. */
  private static String openInAnotherProcess(Path journal) throws Exception {
    Process other =
        new ProcessBuilder(ChildJava.command(ChildJava.QUICK, Opener.class, journal.toString()))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try (BufferedReader answer =
        new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8))) {
      return java.util.Objects.requireNonNullElse(answer.readLine(), "(no answer)");
    } finally {
      if (!other.waitFor(10, TimeUnit.SECONDS)) {
        other.destroyForcibly();
      }
    }
  }

  /**
   * The other process: opens the journal its argument names and closes it at once, printing {@code
   * OPEN}, {@code LOCKED}, or {@code REFUSED} and the reason.
   */
  public static final class Opener {
    private Opener() {}

    public static void main(String[] args) {
      try (FileJournal j = FileJournal.open(Path.of(args[0]))) {
        System.out.println(j.locked() ? "OPEN" : "REFUSED not locked");
      } catch (JournalException e) {
        System.out.println(
            e.reason() == JournalException.Reason.LOCKED ? "LOCKED" : "REFUSED " + e.reason());
      }
    }
  }
}
