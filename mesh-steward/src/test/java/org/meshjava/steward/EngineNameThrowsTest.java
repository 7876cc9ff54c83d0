package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;

/**
 * An engine whose {@code name()} throws once the steward is built (its own code, as any accessor
 * is): every refusal after routing names the backend as it was registered, so the serve is still
 * refused with its reason and settled, never an exception from the name past the serve; and a
 * request naming the model by that registered name is still served.
 */
class EngineNameThrowsTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** The reference engine "ref"; once broken its name() throws, and so does {@code which}. */
  private static final class NameBreaks extends ForwardingEngine {
    private final String which;
    volatile boolean broken;

    NameBreaks(String which) {
      super(GrantFixture.ref());
      this.which = which;
    }

    @Override
    public String name() {
      if (broken) {
        throw new IllegalStateException("name unreadable");
      }
      return super.name();
    }

    @Override
    public Set<EnergyDomain> domains() {
      if (broken && which.equals("domains")) {
        throw new IllegalStateException("domains unreadable");
      }
      return super.domains();
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence payload) throws EngineException {
      if (broken && which.equals("serve")) {
        throw new EngineException("the work failed");
      }
      return super.serve(request, payload);
    }
  }

  /**
   * Regression: EngineAnswer's refusal asked name() again, after the grant was decided, so the
   * serve ended with the name's IllegalStateException instead of ENGINE_FAILED.
   */
  @Test
  void aThrowingNameAndDomains_isEngineFailed_namingTheRegisteredBackend() throws Exception {
    assertRefusedAndSettled("domains", "backend ref failed: it could not name its energy domains");
  }

  /** Regression: the meter phase's refusal of a failed work asked name() again. */
  @Test
  void aThrowingNameAndWork_isEngineFailed_namingTheRegisteredBackend() throws Exception {
    assertRefusedAndSettled("serve", "backend ref failed: the work failed");
  }

  private void assertRefusedAndSettled(String which, String says) throws Exception {
    NameBreaks engine = new NameBreaks(which);
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      engine.broken = true;
      ServeRequest req = GrantFixture.request("name breaks " + which, 3, CEILING);

      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
                assertThat(e.getMessage()).contains(says);
              });
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isGreaterThan(BUDGET - CEILING);
    }
  }

  /**
   * Regression: Steward.serves and the model rule compared the live name(), so a request naming the
   * backend by its registered name threw from serves(model), and was refused while routing.
   */
  @Test
  void aRequestNamingTheRegisteredName_isServed() throws Exception {
    NameBreaks engine = new NameBreaks("none");
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      engine.broken = true;
      assertThat(s.serves("ref")).isTrue();
      ServeRequest req = GrantFixture.request("by its name", 3, CEILING).withModel("ref");

      ServeResult r = s.serve(req, GrantFixture.payload(req));

      assertThat(r.receipt().backend()).isEqualTo("ref");
    }
  }
}
