package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;

/**
 * An engine whose {@code name()} answers otherwise once the steward is built (one naming itself
 * after the model it has loaded, or answering anew on each call): the serve goes on under the name
 * it was registered, checked and routed under, in the route, the receipt and the journal, and its
 * declared bounds still hold; never a lookup by the new name that fails after the work.
 */
class EngineRenamedTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** Answers "ref" until renamed, then a new name on every call. */
  private static final class Renames extends ForwardingEngine {
    volatile boolean renamed;
    private final AtomicInteger calls = new AtomicInteger();

    Renames() {
      super(GrantFixture.ref());
    }

    @Override
    public String name() {
      return renamed ? "ref-v" + calls.incrementAndGet() : super.name();
    }
  }

  /**
   * Regression: the route's chosen candidate was looked up by the engine's name() asked again, so
   * the serve failed with NoSuchElementException after the work had run and been debited.
   */
  @Test
  void aServeOnAnEngineRenamedAfterTheBuild_goesOnUnderItsRegisteredName() throws Exception {
    Renames engine = new Renames();
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(journal).backend(engine).build()) {
      engine.renamed = true;
      ServeRequest req = GrantFixture.request("renamed", 3, CEILING);

      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));

      assertThat(r.receipt().backend()).isEqualTo("ref");
      assertThat(r.route().justification()).contains(": ref F");
      assertThat(journal.records().stream().map(rec -> rec.entry()))
          .filteredOn(JournalEntry.Authorised.class::isInstance)
          .singleElement()
          .satisfies(a -> assertThat(((JournalEntry.Authorised) a).backend()).isEqualTo("ref"));
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - r.receipt().energy().uj());
    }
  }
}
