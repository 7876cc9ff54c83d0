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
 * while it encodes) when the steward queues a grant's decision. Unlike a {@code JournalException},
 * the throw does not say nothing was recorded (a decorator may throw after its inner journal queued
 * the record, {@code ThrowAfterQueueingTest}), so the decision keeps the request's ceiling held on
 * the grant, as a replay that met the record would.
 */
class UncheckedJournalFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  final GrantFixture f = new GrantFixture();

  /**
   * Session 28 let the hold go here; a throw after the record was queued then let the grant be
   * decided over a ceiling a replay holds. The grant is short of one ceiling until a restart, and
   * serves on within the rest. (The presentation stays spent: the caller signs a new one.)
   */
  @Test
  void anAuthorisationTheJournalFailsUnchecked_keepsItsCeilingHeld() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    FailsOnceUnchecked journal =
        new FailsOnceUnchecked(new DurableMemoryJournal(), JournalEntry.Authorised.class);
    try (Steward s = f.steward(journal).build()) {
      ServeRequest req = GrantFixture.request("unchecked", 4, CEILING);
      Presentation shown = f.present(chain, req);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), shown))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("encoder bug");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
      // The kept hold is listed, its record's number unknown until a restart (KeptHoldListedTest).
      assertThat(s.unresolved())
          .singleElement()
          .satisfies(u -> assertThat(u.ceilingUj()).isEqualTo(CEILING));

      ServeRequest again = GrantFixture.request("unchecked, again", 4, CEILING);
      ServeResult served = s.serve(again, GrantFixture.payload(again), f.present(chain, again));
      assertThat(s.spend().remainingUj(chain))
          .isEqualTo(BUDGET - CEILING - served.receipt().energy().uj());
    }
  }
}
