package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * A journal decorator that throws unchecked after its inner journal queued a record ({@link
 * FailsOnceUnchecked#afterQueueing}): the steward cannot tell that from a record never queued, so
 * it must take whichever answer a restart on the journal can live with.
 */
class ThrowAfterQueueingTest {
  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * A receipt's {@code Sealed} record: the chain has not advanced past it, and sealing on would
   * give the next receipt the same number, which a restart refuses. The steward stops sealing
   * instead, and a restart finds where the chain stands.
   *
   * <p>Regression: the second serve sealed receipt 0 again, so the journal held two receipts of
   * number 0 and the steward would not start on it again.
   */
  @Test
  void aThrowAfterTheSealedRecordWasQueued_stopsSealing_andTheJournalStillStarts()
      throws Exception {
    Path file = dir.resolve("j");
    try (Steward s =
        f.steward(
                FailsOnceUnchecked.afterQueueing(FileJournal.open(file), JournalEntry.Sealed.class))
            .build()) {
      ServeRequest first = GrantFixture.request("first", 3, 50_000);
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("decorator bug after queueing");

      ServeRequest second = GrantFixture.request("second", 3, 50_000);
      assertThatThrownBy(() -> s.serve(second, GrantFixture.payload(second)))
          .isInstanceOf(ServeException.class)
          .hasMessageContaining("no receipt is sealed until the steward is restarted")
          .hasRootCauseInstanceOf(JournalException.class);
      assertThat(s.readiness().journal().writable()).isFalse();
    }
    try (Steward s = f.steward(FileJournal.open(file)).build()) {
      // The queued receipt 0 stands; the chain goes on from it.
      assertThat(s.head().nextSequence()).isEqualTo(1);
      ServeRequest third = GrantFixture.request("third", 3, 50_000);
      assertThat(s.serve(third, GrantFixture.payload(third)).receipt().sequence()).isEqualTo(1);
    }
  }

  /**
   * A receipt's {@code Sealed} record queued, and its wait then thrown unchecked by a decorator:
   * whether it is durable is as unknown as after a throw once it was queued, and the steward stops
   * sealing the same way.
   *
   * <p>Regression: the throw passed with the chain advanced past receipt 0 and nothing marked, and
   * the next serve sealed receipt 1 over a record whose fate was unknown.
   */
  @Test
  void aThrowWhileAwaitingTheSealedRecord_stopsSealing_andTheJournalStillStarts() throws Exception {
    Path file = dir.resolve("j");
    try (Steward s =
        f.steward(
                FailsOnceUnchecked.whileAwaiting(FileJournal.open(file), JournalEntry.Sealed.class))
            .build()) {
      ServeRequest first = GrantFixture.request("first", 3, 50_000);
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("decorator bug while waiting");

      ServeRequest second = GrantFixture.request("second", 3, 50_000);
      assertThatThrownBy(() -> s.serve(second, GrantFixture.payload(second)))
          .isInstanceOf(ServeException.class)
          .hasMessageContaining("no receipt is sealed until the steward is restarted");
    }
    try (Steward s = f.steward(FileJournal.open(file)).build()) {
      assertThat(s.head().nextSequence()).isEqualTo(1);
    }
  }

  /**
   * A {@code Revoked} record: the journal holds the revocation whether or not the steward takes it
   * as recorded, so the steward refuses the grant from then on, or it would journal decisions a
   * replay refuses.
   *
   * <p>Regression: the grant was still honoured, its decision journalled after the revocation.
   */
  @Test
  void aThrowAfterTheRevokedRecordWasQueued_refusesTheGrant_andTheJournalStillStarts()
      throws Exception {
    Path file = dir.resolve("j");
    GrantChain chain = f.chain(1_000_000);
    try (Steward s =
        f.steward(
                FailsOnceUnchecked.afterQueueing(
                    FileJournal.open(file), JournalEntry.Revoked.class))
            .build()) {
      assertThatThrownBy(() -> s.revoke(Revocation.sign(f.org, chain, GrantFixture.NOW)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("decorator bug after queueing");

      ServeRequest after = GrantFixture.request("after the revocation", 3, 50_000);
      assertThatThrownBy(() -> s.serve(after, GrantFixture.payload(after), f.present(chain, after)))
          .isInstanceOf(GrantDeniedException.class);
    }
    try (Steward s = f.steward(FileJournal.open(file)).build()) {
      ServeRequest later = GrantFixture.request("after a restart", 3, 50_000);
      assertThatThrownBy(() -> s.serve(later, GrantFixture.payload(later), f.present(chain, later)))
          .isInstanceOf(GrantDeniedException.class);
    }
  }

  /**
   * A grant's {@code Authorised} record: a replay holds the request's ceiling for a decision with
   * no debit after it, so this process keeps that hold too. On a grant with room for one ceiling
   * and not two, the next request is refused rather than decided over it.
   *
   * <p>Regression: the hold was released, the next request decided and served on the same grant,
   * and a restart refused the journal (the gate refuses that recorded decision).
   */
  @Test
  void aThrowAfterTheAuthorisedRecordWasQueued_keepsTheHold_andTheJournalStillStarts()
      throws Exception {
    Path file = dir.resolve("j");
    GrantChain chain = f.chain(75_000);
    try (Steward s =
        f.steward(
                FailsOnceUnchecked.afterQueueing(
                    FileJournal.open(file), JournalEntry.Authorised.class))
            .build()) {
      ServeRequest first = GrantFixture.request("first", 3, 50_000);
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("decorator bug after queueing");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(25_000);

      ServeRequest second = GrantFixture.request("second", 3, 50_000);
      assertThatThrownBy(
              () -> s.serve(second, GrantFixture.payload(second), f.present(chain, second)))
          .isInstanceOf(GrantDeniedException.class);
    }
    try (Steward s = f.steward(FileJournal.open(file)).build()) {
      assertThat(s.unresolved()).hasSize(1);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(25_000);
    }
  }

  /**
   * A grant's {@code Authorised} record queued, its wait then thrown unchecked: whether a replay
   * will hold the ceiling is as unknown as after a throw once it was queued, so the hold stays and
   * is listed unresolved, where an operator sees why the grant is short.
   *
   * <p>Regression: the hold stayed but {@code unresolved()} listed nothing, so the grant was short
   * of a ceiling with no reason shown until a restart.
   */
  @Test
  void aThrowWhileAwaitingTheAuthorisedRecord_keepsTheHold_listedUnresolved() throws Exception {
    Path file = dir.resolve("j");
    GrantChain chain = f.chain(75_000);
    try (Steward s =
        f.steward(
                FailsOnceUnchecked.whileAwaiting(
                    FileJournal.open(file), JournalEntry.Authorised.class))
            .build()) {
      ServeRequest first = GrantFixture.request("first", 3, 50_000);
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("decorator bug while waiting");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(25_000);
      assertThat(s.unresolved()).hasSize(1);
    }
    try (Steward s = f.steward(FileJournal.open(file)).build()) {
      assertThat(s.unresolved()).hasSize(1);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(25_000);
    }
  }

  /**
   * A refused serve's {@code Debited} record (no {@code Sealed} record follows, so the steward
   * waits for this one) whose wait throws unchecked: as unsure as a debit the journal threw on, so
   * grants stop, or this process would decide over a spend a replay may not have.
   *
   * <p>Regression: the next granted request was admitted and run over the in-process spend.
   */
  @Test
  void aThrowWhileAwaitingARefusedServesDebit_stopsGrants() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    StewardGrantTest.Delegating failing =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            throw new EngineException("gave up");
          }
        };
    try (Steward s =
        f.bare(
                FailsOnceUnchecked.whileAwaiting(
                    new DurableMemoryJournal(), JournalEntry.Debited.class))
            .backend(failing)
            .build()) {
      ServeRequest first = GrantFixture.request("first", 3, 50_000);
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("decorator bug while waiting");

      ServeRequest second = GrantFixture.request("second", 3, 50_000);
      assertThatThrownBy(
              () -> s.serve(second, GrantFixture.payload(second), f.present(chain, second)))
          .isInstanceOf(GrantsSuspendedException.class)
          .hasMessageContaining("the journal failed on a debit");
    }
  }
}
