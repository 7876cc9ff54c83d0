package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;

/**
 * A journal that fails unchecked on a serve's {@code Debited} record leaves the grant's debit in
 * this process with no record behind it; a replay holds that serve's whole ceiling instead. The
 * steward stops honouring grants rather than journal decisions over a spend the replay does not
 * have, which it would refuse when the steward starts again.
 */
class UncheckedDebitFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 600_000;

  private final GrantFixture f = new GrantFixture();

  /**
   * Regression: the second serve was admitted over the in-process spend (a few hundred µJ), so the
   * journal held two decisions of 600,000 µJ each on a 1,000,000 µJ grant with the first
   * unresolved, which a replay refuses.
   */
  @Test
  void aDebitTheJournalFailsUnchecked_stopsGrants() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    DurableMemoryJournal stored = new DurableMemoryJournal();
    try (Steward s =
        f.steward(new FailsOnceUnchecked(stored, JournalEntry.Debited.class)).build()) {
      ServeRequest first = GrantFixture.request("debit fails", 4, CEILING);
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("encoder bug");

      ServeRequest second = GrantFixture.request("after it", 4, CEILING);
      assertThatThrownBy(
              () -> s.serve(second, GrantFixture.payload(second), f.present(chain, second)))
          .isInstanceOf(GrantsSuspendedException.class)
          .hasMessageContaining("the journal failed on a debit (encoder bug)");
      assertThat(stored.records())
          .filteredOn(r -> r.entry() instanceof JournalEntry.Authorised)
          .hasSize(1);
    }
  }
}
