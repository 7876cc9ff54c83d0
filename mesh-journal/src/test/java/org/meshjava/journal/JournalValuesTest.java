package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.receipt.Envelope;

/** The journal's values refuse what no journal holds (§2.2, SPEC.md §60.2). */
class JournalValuesTest {
  static final ContentId H = ContentId.ofBytes(new byte[] {1});

  @Test
  void aPosition_pinsACountToAHash() {
    assertThat(JournalPosition.GENESIS).isEqualTo(new JournalPosition(0, Optional.empty(), 0));
    assertThatThrownBy(() -> new JournalPosition(-1, Optional.empty(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalPosition(0, Optional.of(H), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalPosition(1, Optional.empty(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalPosition(1, Optional.of(H), -2))
        .isInstanceOf(IllegalArgumentException.class);
    JournalPosition p = new JournalPosition(1, Optional.of(H), 40);
    assertThat(new JournalPosition(1, Optional.of(H), -1).locator()).isEqualTo(-1);
    assertThat(p.withoutLocator()).isEqualTo(new JournalPosition(1, Optional.of(H), -1));
    assertThat(p.samePlace(p.withoutLocator())).isTrue();
    assertThat(p.samePlace(new JournalPosition(2, Optional.of(H), 40))).isFalse();
    assertThat(p.samePlace(new JournalPosition(1, Optional.of(ContentId.ofBytes(new byte[2])), 40)))
        .isFalse();
  }

  @Test
  void anException_namesItsRecordWhenOneIsToBlame() {
    JournalException none = new JournalException(JournalException.Reason.IO, "x", null);
    assertThat(none.seq()).isEmpty();
    assertThat(none.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(new JournalException(JournalException.Reason.CORRUPT, 0, "x", null).seq())
        .hasValue(0);
    assertThat(new JournalException(JournalException.Reason.CORRUPT, 9, "x", null).seq())
        .hasValue(9);
    SnapshotException s = new SnapshotException(SnapshotException.Reason.IO, "x", null);
    assertThat(s.reason()).isEqualTo(SnapshotException.Reason.IO);
  }

  @Test
  void anAuthorisation_isRecordedToTheMillisecond_andComparedByItsPresentation() {
    JournalEntry.Authorised a = JournalHistory.authorised(0);
    assertThatThrownBy(
            () ->
                new JournalEntry.Authorised(
                    a.presentation(),
                    a.request(),
                    a.model(),
                    a.backend(),
                    a.decidedAt().plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(a)
        .isEqualTo(JournalHistory.authorised(0))
        .hasSameHashCodeAs(JournalHistory.authorised(0));
    JournalEntry.Authorised otherNonce = JournalHistory.authorised(0);
    assertThat(a)
        .isNotEqualTo(JournalHistory.authorised(1))
        .isNotEqualTo(JournalHistory.authorised(0, a.decidedAt().plusMillis(1)))
        .isNotEqualTo(
            new JournalEntry.Authorised(
                a.presentation(), a.request(), Optional.of(H), a.backend(), a.decidedAt()))
        .isNotEqualTo(
            new JournalEntry.Authorised(
                a.presentation(), a.request(), a.model(), "elsewhere", a.decidedAt()))
        .isNotEqualTo(
            new JournalEntry.Authorised(
                JournalHistory.authorised(1).presentation(),
                a.request(),
                a.model(),
                a.backend(),
                a.decidedAt()))
        .isNotEqualTo(
            new JournalEntry.Authorised(
                a.presentation(), JournalHistory.request(5), a.model(), a.backend(), a.decidedAt()))
        .isNotEqualTo(new JournalEntry.Resumed("x"));
    assertThat(otherNonce).isEqualTo(a);
  }

  @Test
  void anAuthorisation_isRefusedAtATimeItsRecordCannotCarry_andRoundTripsAtEitherEnd(
      @TempDir Path dir) throws Exception {
    JournalEntry.Authorised a = JournalHistory.authorised(0);
    // Before the fix, both were built, and the journal then wrote "-1" (a line no reader accepts)
    // or failed to encode the record after giving it its sequence.
    for (Instant unrecordable :
        List.of(Instant.EPOCH.minusMillis(1), Instant.ofEpochMilli(Long.MAX_VALUE).plusMillis(1))) {
      assertThatThrownBy(
              () ->
                  new JournalEntry.Authorised(
                      a.presentation(), a.request(), a.model(), a.backend(), unrecordable))
          .as("decided at %s", unrecordable)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot be recorded");
    }
    Path file = dir.resolve("ends.journal");
    try (FileJournal j = FileJournal.open(file)) {
      j.append(JournalHistory.authorised(1, JournalEntry.Authorised.EARLIEST));
      j.append(JournalHistory.authorised(2, JournalEntry.Authorised.LATEST));
    }
    assertThat(
            org.meshjava.journal.internal.JournalFile.read(file).records().stream()
                .map(JournalRecord::entry)
                .filter(e -> e instanceof JournalEntry.Authorised)
                .map(e -> ((JournalEntry.Authorised) e).decidedAt()))
        .containsExactly(JournalEntry.Authorised.EARLIEST, JournalEntry.Authorised.LATEST);
  }

  @Test
  void aDebit_namesARecord_andDebitsNoNegativeFigure() {
    assertThatThrownBy(() -> new JournalEntry.Debited(-1, Energy.estimated(1), 1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalEntry.Debited(0, Energy.estimated(1), -1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new JournalEntry.Debited(0, Energy.estimated(0), 0, Optional.empty()).debitedUj())
        .isZero();
  }

  @Test
  void aSealedRecord_carriesTheEnvelopeExactlyWhenGranted() {
    JournalHistory h = new JournalHistory();
    Envelope e = JournalHistory.seal(h.receipt(0, 100), STEWARD);
    assertThatThrownBy(() -> new JournalEntry.Sealed(-1, H))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new JournalEntry.Sealed(0, e.id(), OptionalLong.of(1), Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new JournalEntry.Sealed(0, e.id(), OptionalLong.empty(), Optional.of(e)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalEntry.Sealed(0, H, OptionalLong.of(1), Optional.of(e)))
        .isInstanceOf(IllegalArgumentException.class);
    JournalEntry.Sealed granted = JournalEntry.Sealed.granted(3, e, 7);
    assertThat(granted.sequence()).isEqualTo(3);
    assertThat(granted.envelopeId()).isEqualTo(e.id());
    assertThat(granted.authorised()).hasValue(7);
    assertThat(granted.envelope()).contains(e);
    assertThat(new JournalEntry.Sealed(0, H).authorised()).isEmpty();
  }

  @Test
  void theSecurityRecords_areValidated() {
    JournalHistory h = new JournalHistory();
    Envelope e = JournalHistory.seal(h.receipt(0, 100), STEWARD);
    assertThatThrownBy(() -> new JournalEntry.Suspended(-1, e))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new JournalEntry.Suspended(0, e).sequence()).isZero();
    assertThatThrownBy(() -> new JournalEntry.Resumed(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalEntry.Resumed("  "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalEntry.Resumed("x".repeat(1001)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new JournalEntry.Resumed("x".repeat(1000)).note()).hasSize(1000);
    assertThat(new JournalEntry.Chain(JournalHistory.CHAIN).id())
        .isEqualTo(ContentId.ofBytes(JournalHistory.CHAIN.encode()));
  }

  @Test
  void aSnapshotState_countsAreNotNegative_andItsCollectionsAreCopies() {
    SnapshotState s = ReplayState.fresh(JournalHistory.gate()).capture(-1);
    for (long[] counts : new long[][] {{-1, 0}, {0, -1}}) {
      assertThatThrownBy(
              () ->
                  new SnapshotState(
                      s.position(),
                      s.ledger(),
                      s.revocations(),
                      s.suspension(),
                      s.lastSealed(),
                      s.receipts(),
                      s.open(),
                      s.settled(),
                      s.checkpoint(),
                      s.chains(),
                      counts[0],
                      counts[1]))
          .isInstanceOf(IllegalArgumentException.class);
    }
    java.util.List<org.meshjava.jcp.GrantChain> chains = new java.util.ArrayList<>();
    SnapshotState copy =
        new SnapshotState(
            s.position(),
            s.ledger(),
            s.revocations(),
            s.suspension(),
            s.lastSealed(),
            s.receipts(),
            s.open(),
            s.settled(),
            s.checkpoint(),
            chains,
            0,
            0);
    chains.add(JournalHistory.CHAIN);
    assertThat(copy.chains()).isEmpty();
    JournalReplay.Result r =
        new JournalReplay.Result(
            Optional.empty(),
            new ReceiptIds(),
            0,
            new java.util.ArrayList<>(List.of()),
            0,
            Optional.empty(),
            0);
    assertThat(r.unresolved()).isEmpty();
    assertThat(Instant.EPOCH).isNotNull();
  }
}
