package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.internal.GrantSuspension;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.receipt.ChainHead;

/**
 * A suspension of grants (the witness shown a receipt the journal lacks) is journalled, survives a
 * restart, and is lifted only by the operator's journalled {@code Resumed} record (issue 13 item
 * 3).
 */
class SuspensionRestartTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  @Test
  void suspension_survivesARestart_andIsLiftedOnlyByTheOperator() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    List<ServeResult> served = new ArrayList<>();
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      for (int i = 0; i < 2; i++) {
        ServeRequest req = GrantFixture.request("cut " + i, 4, 10_000);
        served.add(s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      }
    }
    List<String> lines = Files.readAllLines(journal());
    Files.write(journal(), lines.subList(0, lines.size() - 3)); // cut the last serve's records
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.grantsSuspended()).isEmpty();
      ServeResult cut = served.get(1);
      assertThat(s.witness(cut.receipt(), cut.envelope())).isEqualTo(WitnessVerdict.NOT_HELD);
      assertGrantsRefused(s, chain, "suspended");
    }
    assertThat(JournalFile.read(journal()).records())
        .filteredOn(r -> r.entry() instanceof JournalEntry.Suspended)
        .hasSize(1);
    // A plain restart keeps it.
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.grantsSuspended())
          .hasValueSatisfying(r -> assertThat(r).contains("resume-grants"));
      assertGrantsRefused(s, chain, "still suspended after a restart");
      ServeRequest ungranted = GrantFixture.request("ungranted goes on", 4, 10_000);
      s.serve(ungranted, GrantFixture.payload(ungranted));
    }
    // The operator restores the journal and lifts the suspension, with the steward stopped.
    try (FileJournal j = FileJournal.open(journal())) {
      assertThat(GrantSuspension.lift(j, "restored from backup")).isPresent();
    }
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.grantsSuspended()).isEmpty();
      ServeRequest req = GrantFixture.request("honoured again", 4, 10_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
    }
  }

  /**
   * §2.2 holds with the transparency log turned off too: the witness then reads the journal's index
   * of envelope ids, and a receipt cut from the journal is not held there either.
   */
  @Test
  void cutJournal_withTheLogTurnedOff_isCaughtByTheWitness_andGrantsAreRefused() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    List<ServeResult> served = new ArrayList<>();
    try (Steward s = f.steward(FileJournal.open(journal())).transparencyLog(false).build()) {
      for (int i = 0; i < 2; i++) {
        ServeRequest req = GrantFixture.request("cut " + i, 4, 10_000);
        served.add(s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      }
    }
    List<String> lines = Files.readAllLines(journal());
    Files.write(journal(), lines.subList(0, lines.size() - 3)); // cut the last serve's records
    try (Steward s = f.steward(FileJournal.open(journal())).transparencyLog(false).build()) {
      ServeResult kept = served.get(0);
      assertThat(s.witness(kept.receipt(), kept.envelope())).isEqualTo(WitnessVerdict.HELD);
      assertThat(s.grantsSuspended()).isEmpty();
      ServeResult cut = served.get(1);
      assertThat(s.witness(cut.receipt(), cut.envelope())).isEqualTo(WitnessVerdict.NOT_HELD);
      assertGrantsRefused(s, chain, "suspended");
    }
  }

  /**
   * A chain continued on a new journal (the operator names the head, §6.3) starts its log and its
   * index past 0: the witness must find the new journal's receipts at their own sequence.
   */
  @Test
  void chainContinuedOnANewJournal_itsReceiptsAreHeld_andTheOldJournalsAreNot() throws Exception {
    List<ServeResult> before = new ArrayList<>();
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("old " + i, 4, 10_000);
        before.add(s.serve(req, GrantFixture.payload(req)));
      }
    }
    ChainHead head = ChainHead.after(before.getLast().sealed());
    for (boolean log : List.of(true, false)) {
      try (Steward s =
          f.steward(new DurableMemoryJournal()).chainHead(head).transparencyLog(log).build()) {
        ServeRequest req = GrantFixture.request("new, log " + log, 4, 10_000);
        ServeResult now = s.serve(req, GrantFixture.payload(req));
        assertThat(now.receipt().sequence()).isEqualTo(3);
        assertThat(s.witness(now.receipt(), now.envelope()))
            .as("log %s", log)
            .isEqualTo(WitnessVerdict.HELD);
        ServeResult old = before.get(1);
        assertThat(s.witness(old.receipt(), old.envelope()))
            .as("log %s", log)
            .isEqualTo(WitnessVerdict.NOT_HELD);
      }
    }
  }

  @Test
  void liftingWithNoSuspensionInForce_writesNothing() throws Exception {
    try (FileJournal j = FileJournal.open(journal())) {
      assertThat(GrantSuspension.lift(j, "nothing to lift")).isEmpty();
    }
    assertThat(JournalFile.read(journal()).records()).isEmpty();
  }

  @Test
  void aResumedRecordWithNoSuspension_refusesTheStart() throws Exception {
    try (FileJournal j = FileJournal.open(journal())) {
      j.append(new JournalEntry.Resumed("forged"));
    }
    FileJournal j = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(j).build())
        .isInstanceOfSatisfying(
            StewardStartException.class, e -> assertThat(e.record()).hasValue(0));
  }

  private void assertGrantsRefused(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
        .isInstanceOf(GrantsSuspendedException.class);
  }
}
