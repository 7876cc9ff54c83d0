package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.JournalEntry;

/**
 * A journal that fails with an unchecked exception (an implementation's bug, the heap running out
 * while it encodes) when the steward queues a grant's decision: nothing was recorded, so the
 * decision's reservation is let go, as for a journal that refuses it with a {@code
 * JournalException}.
 */
class UncheckedJournalFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  final GrantFixture f = new GrantFixture();

  /**
   * Regression: the reservation stayed held, the grant short of the request's ceiling until a
   * restart, for a decision the journal held nothing of. (The presentation stays spent, as for any
   * released decision: the caller signs a new one.)
   */
  @Test
  void anAuthorisationTheJournalFailsUnchecked_holdsNothingOfTheGrant() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    FailsOnceUnchecked journal =
        new FailsOnceUnchecked(new DurableMemoryJournal(), JournalEntry.Authorised.class);
    try (Steward s = f.steward(journal).build()) {
      ServeRequest req = GrantFixture.request("unchecked", 4, CEILING);
      Presentation shown = f.present(chain, req);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), shown))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("encoder bug");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();

      ServeRequest again = GrantFixture.request("unchecked, again", 4, CEILING);
      ServeResult served = s.serve(again, GrantFixture.payload(again), f.present(chain, again));
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - served.receipt().energy().uj());
    }
  }
}
