package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;
import org.meshjava.steward.observe.StewardListener;

/**
 * An {@code OutOfMemoryError} or {@code InternalError} (which the listener guard lets pass) from a
 * listener call made once the serve's work is debited ({@code debited}, the seal phase, {@code
 * served}) must not fail the serve: what was served is the receipt sealed and journalled, and the
 * caller gets it. Before the work, with the grant decided (the meter phase's start), it passes, and
 * the grant is settled at nothing rather than left held at its ceiling.
 */
class ListenerErrorAfterTheWorkTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  private final List<String> heard = new CopyOnWriteArrayList<>();

  /** A listener throwing {@code error} from {@code where}, and noting every outcome it hears. */
  private StewardListener throwing(String where, Error error) {
    return new ScriptedListener(
        phase -> {
          if (where.equals(phase.name())) {
            throw error;
          }
        },
        outcome -> {
          heard.add(outcome);
          if (outcome.equals(where)) {
            throw error;
          }
        },
        () -> {
          if (where.equals("debited")) {
            throw error;
          }
        });
  }

  /** Serves once on a grant; an Error reaching here is made an assertion, not a JVM's end. */
  private ServeResult serve(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 3, CEILING);
    try {
      return s.serve(req, GrantFixture.payload(req), f.present(chain, req));
    } catch (Error e) {
      throw new AssertionError("the serve failed: " + e, e);
    }
  }

  /**
   * Regression: each error failed the serve after its debit was journalled (from {@code served},
   * after its receipt was too), and the listener heard it both served and failed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"served", "SEAL", "debited"})
  void anErrorFromAListenerAfterTheWork_leavesTheReceiptServed(String where) throws Exception {
    Error error =
        where.equals("SEAL") ? new InternalError("simulated") : new OutOfMemoryError("simulated");
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.steward(journal).listener(throwing(where, error)).build()) {
      ServeResult r = serve(s, chain, "after the work, " + where);

      assertThat(r.receipt().sequence()).isZero();
      assertThat(journal.records().stream().map(rec -> rec.entry()))
          .hasAtLeastOneElementOfType(JournalEntry.Sealed.class);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - r.receipt().energy().uj());
      assertThat(heard).containsExactly("served");
    }
  }

  /**
   * Regression: the error from the meter phase's start escaped between the decision and the
   * settlement, so the grant stayed held at the request's ceiling (unresolved after a restart).
   */
  @Test
  void anErrorFromTheMeterPhasesStart_passes_andSettlesTheGrantAtNothing() throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.steward(journal).listener(throwing("METER", new InternalError("simulated"))).build()) {
      ServeRequest req = GrantFixture.request("meter phase", 3, CEILING);
      Throwable thrown = null;
      try {
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      } catch (Error e) {
        thrown = e;
      }
      assertThat(thrown).isInstanceOf(InternalError.class);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(journal.records().stream().map(rec -> rec.entry()))
          .hasAtLeastOneElementOfType(JournalEntry.Debited.class);
      assertThat(heard).containsExactly("failed");
    }
  }
}
