package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenAccounting;
import org.meshjava.jcp.GrantChain;

/**
 * What a granted serve asks the routed engine after routing, outside its work (its context size and
 * token accounting before the decision, its energy domains before the work, its token accounting
 * again once the work is done): the engine's own code, so a throw is the backend failing, refused
 * {@code ENGINE_FAILED} (nothing debited before the work, what was metered after it), never an
 * exception past the serve. An accessor that answers once and throws the next time (an engine
 * changing under the steward) is caught wherever it throws.
 */
class EngineAccessorAfterRoutingTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** The reference engine; {@code which} throws from its {@code after}-th call on. */
  private static final class Breaks extends ForwardingEngine {
    private final String which;
    private final int after;
    private final AtomicInteger calls = new AtomicInteger();

    Breaks(String which, int after) {
      super(GrantFixture.ref());
      this.which = which;
      this.after = after;
    }

    private void maybe(String asked) {
      if (which.equals(asked) && calls.incrementAndGet() > after) {
        throw new IllegalStateException(asked + " unreadable");
      }
    }

    @Override
    public OptionalLong contextTokens() {
      maybe("contextTokens");
      return super.contextTokens();
    }

    @Override
    public TokenAccounting tokenAccounting() {
      maybe("tokenAccounting");
      return super.tokenAccounting();
    }

    @Override
    public Set<EnergyDomain> domains() {
      maybe("domains");
      return super.domains();
    }
  }

  /** Regression: each IllegalStateException escaped the serve; the grant kept, nothing spent. */
  @ParameterizedTest
  @ValueSource(strings = {"contextTokens", "tokenAccounting", "domains"})
  void anAccessorThatThrowsBeforeTheWork_isEngineFailed_andDebitsNothing(String which)
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(new Breaks(which, 0)).build()) {
      ServeRequest req = GrantFixture.request("broken " + which, 3, CEILING);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED))
          .hasMessageContaining(which + " unreadable");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /**
   * Token accounting answered when the payload is priced and thrown when the result is checked,
   * after the work. Regression: the IllegalStateException escaped the serve after its debit.
   */
  @Test
  void tokenAccountingThatThrowsOnceTheWorkIsDone_isEngineFailed_andDebitsWhatWasMetered()
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal()).backend(new Breaks("tokenAccounting", 1)).build()) {
      ServeRequest req = GrantFixture.request("changes under the steward", 3, CEILING);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      assertThat(s.spend().remainingUj(chain)).isLessThan(BUDGET).isGreaterThan(BUDGET - CEILING);
      assertThat(s.head().nextSequence()).isZero();
      assertThat(s.unresolved()).isEmpty();
    }
  }
}
