package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.steward.Steward;

/**
 * Regression: {@code mesh serve} without {@code --key} on a journal an earlier keyless start wrote
 * was refused with the library's advice, "open it with that key (Steward.builder(key); …)": a
 * builder method its user never sees, for a key that never existed outside the earlier process. The
 * steward's words now name no interface, and {@code mesh serve} says which flag gives a key.
 */
class ServeAnotherIdentitysJournalTest {
  @TempDir Path tmp;

  /** Seals one receipt into {@code journal} with a keyless steward, keeping snapshots if asked. */
  private static void sealOnce(Path journal, boolean snapshots) throws Exception {
    Steward.Builder b =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .journal(FileJournal.open(journal))
            .backend(ReferenceEngine.builder().name("ref").build());
    if (snapshots) {
      b.snapshots(FileSnapshotStore.beside(journal)); // mesh serve's default; one saved at close
    }
    try (Steward once = b.build()) {
      PromptText prompt = PromptText.of("sealed by a keyless run");
      once.serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
    }
  }

  @Test
  void serveWithoutAKey_onAnEarlierKeylessStartsJournal_isToldToPassAKey_orNameANewJournal()
      throws Exception {
    Path journal = tmp.resolve("steward.journal");
    sealOnce(journal, false);

    Run r = CliErrorsTest.serveOnATakenPort(journal);

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: journal " + journal + " already holds 2 records of an earlier start")
        .contains("pass --key with the key that wrote it, or name a new journal")
        .doesNotContain("Steward.builder")
        .doesNotContain("cannot listen");
  }

  /**
   * Regression: a keyless {@code mesh serve} stopped cleanly leaves a snapshot, and the next
   * keyless start on its journal was refused by that snapshot with "give each steward a snapshot
   * store of its own": advice for two stewards sharing a folder, naming no key. It now says to pass
   * --key.
   */
  @Test
  void serveWithoutAKey_onAKeylessJournalWithASnapshot_isToldToPassAKey() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    sealOnce(journal, true);

    Run r = CliErrorsTest.serveOnATakenPort(journal);

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("already holds")
        .contains("pass --key with the key that wrote it, or name a new journal")
        .doesNotContain("cannot listen");
  }

  /**
   * Regression: a journal cut before its first checkpoint (a crash after a serve) holds nothing a
   * new identity's replay refuses, so a keyless start went on: it got as far as its listener, and
   * its close left a snapshot of its own identity beside the journal, which then refused every
   * later start, the key that wrote the journal's included. It is refused before any steward opens
   * the journal, which is left as it was.
   */
  @Test
  void serveWithoutAKey_onAJournalCutBeforeItsFirstCheckpoint_isRefused_andTouchesNothing()
      throws Exception {
    Path journal = tmp.resolve("steward.journal");
    sealOnce(journal, false);
    Files.write(
        journal,
        Files.readAllLines(journal).stream().filter(l -> !l.contains("Checkpoint")).toList());
    byte[] before = Files.readAllBytes(journal);

    Run r = CliErrorsTest.serveOnATakenPort(journal);

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("already holds 1 record of an earlier start")
        .contains("pass --key with the key that wrote it, or name a new journal")
        .doesNotContain("cannot listen");
    assertThat(Files.readAllBytes(journal)).isEqualTo(before);
    assertThat(FileSnapshotStore.beside(journal).directory()).doesNotExist();
  }

  /** The same journal started with another key's file: the refusal names the file given. */
  @Test
  void serveWithAnotherKey_isToldThatKeyIsNotTheOneThatWroteIt() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    sealOnce(journal, true);
    Path key = tmp.resolve("other.key");
    Files.writeString(key, HexFormat.of().formatHex(SigningKey.generate().exportSeed()) + "\n");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));

    Run r = CliErrorsTest.serveUntilListening(journal, "--key", key.toString());

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("if --key " + key + " is not the key that wrote the journal, pass --key")
        .doesNotContain("cannot listen");
  }
}
