package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Energy;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.Unresolved;

class JournalRestartTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  @Test
  void restart_reestablishesSpend_spendsReplayedPresentations_andContinuesTheChain()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("before the restart", 10, 50_000);
    Presentation p = f.present(chain, req);
    ServeResult last;
    long remaining;
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      s.serve(GrantFixture.request("ungranted", 3, 50_000), GrantFixture.payload(req));
      last = s.serve(req, GrantFixture.payload(req), p);
      remaining = s.spend().remainingUj(chain);
      assertThat(remaining).isLessThan(1_000_000);
    }
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.spend().remainingUj(chain)).as("no budget given back").isEqualTo(remaining);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), p))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT));
      assertThat(s.head().nextSequence()).isEqualTo(2);
      ServeResult next = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(next.receipt().sequence()).isEqualTo(2);
      assertThat(next.receipt().prev()).contains(last.envelope().id());
      assertThat(s.witness(last.receipt(), last.envelope())).isEqualTo(WitnessVerdict.HELD);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  @Test
  void authorisationWithoutDebit_comesBackUnresolved_heldAtItsCeiling_namingCallerAndBackend()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("in flight", 10, 70_000);
    Presentation p = f.present(chain, req);
    try (FileJournal j = FileJournal.open(journal())) {
      j.append(new JournalEntry.Authorised(p, req, Optional.empty(), "ref", GrantFixture.NOW));
    }
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      List<Unresolved> u = s.unresolved();
      assertThat(u).hasSize(1);
      assertThat(u.get(0).caller()).isEqualTo(p.caller());
      assertThat(u.get(0).backend()).isEqualTo("ref");
      assertThat(u.get(0).ceilingUj()).isEqualTo(70_000);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000 - 70_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), p))
          .isInstanceOf(GrantDeniedException.class);
    }
  }

  @Test
  void debitWithNoAuthorisation_refusesToStart_namingTheRecord() throws Exception {
    try (FileJournal j = FileJournal.open(journal())) {
      j.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[1])));
      j.append(new JournalEntry.Debited(0, Energy.estimated(10), 10, Optional.empty()));
    }
    assertStartRefused(1);
  }

  @Test
  void presentationSpentTwice_refusesToStart() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("twice", 4, 10_000);
    Presentation p = f.present(chain, req);
    try (FileJournal j = FileJournal.open(journal())) {
      for (int i = 0; i < 2; i++) {
        j.append(new JournalEntry.Authorised(p, req, Optional.empty(), "ref", GrantFixture.NOW));
      }
    }
    assertStartRefused(2); // record 0 carries the chain, 1 the first authorisation
  }

  @Test
  void receiptOutOfSequence_refusesToStart() throws Exception {
    try (FileJournal j = FileJournal.open(journal())) {
      j.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
      j.append(new JournalEntry.Sealed(2, ContentId.ofBytes(new byte[] {2})));
    }
    assertStartRefused(1);
  }

  @Test
  void aDecisionTheGateRefusesOnReplay_refusesToStart() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("never valid then", 4, 10_000);
    Presentation p = f.present(chain, req);
    try (FileJournal j = FileJournal.open(journal())) {
      // Recorded at a time the grant was not yet valid: no steward of ours would have written it.
      j.append(
          new JournalEntry.Authorised(
              p, req, Optional.empty(), "ref", GrantFixture.NOW.minusSeconds(86_400)));
    }
    assertStartRefused(1);
  }

  @Test
  void editedMiddleRecord_refusesToStart() throws Exception {
    servedThree();
    List<String> lines = new ArrayList<>(Files.readAllLines(journal()));
    int i = lines.size() / 2;
    lines.set(i, lines.get(i).replaceFirst("\"debited_uj\":\\d+", "\"debited_uj\":1"));
    lines.set(i, lines.get(i).replaceFirst("\"sequence\":(\\d+)", "\"sequence\":9$1"));
    Files.write(journal(), lines);
    assertThatThrownBy(() -> org.meshjava.journal.internal.JournalFile.read(journal()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
  }

  @Test
  void recordsCutFromTheEnd_plusTheWitnessOfALaterReceipt_makeTheStewardRefuseGrants()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    List<ServeResult> served = new ArrayList<>();
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("cut " + i, 4, 10_000);
        served.add(s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      }
    }
    List<String> lines = Files.readAllLines(journal());
    Files.write(journal(), lines.subList(0, lines.size() - 3)); // the last serve's three records
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.head().nextSequence()).isEqualTo(2);
      ServeRequest req = GrantFixture.request("still fine", 4, 10_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      ServeResult later = served.get(2);
      assertThat(s.witness(later.receipt(), later.envelope())).isEqualTo(WitnessVerdict.NOT_HELD);
      ServeRequest after = GrantFixture.request("after the witness", 4, 10_000);
      assertThatThrownBy(() -> s.serve(after, GrantFixture.payload(after), f.present(chain, after)))
          .isInstanceOf(GrantsSuspendedException.class);
      assertThat(s.serve(after, GrantFixture.payload(after)).receipt().sequence()).isEqualTo(3);
    }
  }

  @Test
  void tornFinalLine_isDropped_andTheStewardStarts() throws Exception {
    servedThree();
    Files.write(
        journal(),
        "{\"seq\":9,\"entr".getBytes(StandardCharsets.UTF_8),
        java.nio.file.StandardOpenOption.APPEND);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.head().nextSequence()).isEqualTo(3);
    }
  }

  @Test
  void aChainHeadGivenForAJournalThatRecordsReceipts_isRefusedNamingBoth() throws Exception {
    servedThree();
    Steward.Builder b =
        f.steward(FileJournal.open(journal()))
            .chainHead(
                new org.meshjava.receipt.ChainHead(7, Optional.of(ContentId.ofBytes(new byte[1]))));
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chainHead given (next receipt 7)")
        .hasMessageContaining(journal().toString())
        .hasMessageContaining("records receipts up to 2");
  }

  private void servedThree() throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("three " + i, 4, 10_000);
        s.serve(req, GrantFixture.payload(req));
      }
    }
  }

  private void assertStartRefused(long record) throws Exception {
    FileJournal j = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(j).build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.record()).hasValue(record);
              assertThat(e.getMessage()).contains(journal().toString());
            });
    // The refused steward released the journal.
    FileJournal.open(journal()).close();
  }
}
