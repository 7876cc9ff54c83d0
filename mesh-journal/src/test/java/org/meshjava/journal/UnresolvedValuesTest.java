package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.CALLER;
import static org.meshjava.journal.JournalHistory.CEILING;

import org.junit.jupiter.api.Test;
import org.meshjava.core.identity.DidKey;

/**
 * An {@link Unresolved} holds a journal record's number (or {@link Unresolved#UNKNOWN_RECORD}) and
 * a ceiling that is a u64: one made with anything else is refused when made, not listed to an
 * operator as a hold at a negative ceiling or at record -5.
 */
class UnresolvedValuesTest {

  private static Unresolved unresolved(long seq, long ceilingUj) {
    JournalEntry.Authorised a = JournalHistory.authorised(0);
    return new Unresolved(
        seq,
        DidKey.of(CALLER.verificationKey()),
        "backend-0",
        a.request().id(),
        a.presentation().grantId(),
        ceilingUj,
        a.decidedAt());
  }

  @Test
  void aRecordNumberOrUnknown_andANonNegativeCeiling_areTaken() {
    assertThat(unresolved(0, 0).authorisedSeq()).isZero();
    assertThat(unresolved(Unresolved.UNKNOWN_RECORD, CEILING).toString())
        .contains("its journal record not known until a restart");
  }

  /** Regression: the constructor took both, and toString said "journal record -2". */
  @Test
  void aRecordNumberBelowUnknown_isRefused() {
    assertThatThrownBy(() -> unresolved(-2, CEILING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("authorisedSeq");
  }

  /** Regression: a hold at -1 µJ was taken and listed as held. */
  @Test
  void aNegativeCeiling_isRefused() {
    assertThatThrownBy(() -> unresolved(3, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ceilingUj");
  }

  @Test
  void aNullComponent_isRefused() {
    JournalEntry.Authorised a = JournalHistory.authorised(0);
    assertThatThrownBy(
            () ->
                new Unresolved(
                    0, null, "b", a.request().id(), a.presentation().grantId(), 1, a.decidedAt()))
        .isInstanceOf(NullPointerException.class);
  }
}
