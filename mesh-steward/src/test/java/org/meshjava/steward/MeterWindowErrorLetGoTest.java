package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;

/**
 * A failed serve's window is let go, and the serve refused {@code ENGINE_FAILED}, when what fails
 * while it is settled (the engine's cost profile, the meter's close) throws an {@link Error} rather
 * than a {@link RuntimeException}: an engine's Error is already caught there, and its profile is
 * engine code too.
 */
class MeterWindowErrorLetGoTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 500_000;

  private final GrantFixture f = new GrantFixture();
  private final List<String> events = new CopyOnWriteArrayList<>();

  private static ReferenceEngine reference() {
    return ReferenceEngine.builder().name("ref").costProfile(CostProfile.perToken(100)).build();
  }

  /** Regression: a profile's StackOverflowError escaped the meter phase, its window left open. */
  @Test
  void aCostProfileThatThrowsAnError_letsTheWindowGo_andIsRefusedEngineFailed() throws Exception {
    ProfileFailsAfterWork broken =
        new ProfileFailsAfterWork(reference(), () -> new StackOverflowError("profile recursed"));
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .meter(new RecordingMeter(events))
            .backend(broken)
            .build()) {
      engineFailed(s, chain, GrantFixture.request("hello", 10, CEILING));
      assertThat(events).containsExactly("open", "abandon");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /** Regression: a meter whose close threw an Error after an engine failure escaped the phase. */
  @Test
  void aMeterWhoseCloseThrowsAnError_afterAnEngineFailure_isRefusedEngineFailed() throws Exception {
    EnergyMeter failing =
        new EnergyMeter() {
          @Override
          public String name() {
            return "failing";
          }

          @Override
          public MeterWindow open(Set<EnergyDomain> domains) {
            return new MeterWindow() {
              @Override
              public Energy close(long estimatedUj) {
                throw new AssertionError("meter bug");
              }

              @Override
              public void abandon() {}
            };
          }
        };
    StewardGrantTest.Delegating throwing =
        new StewardGrantTest.Delegating(reference()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            throw new EngineException("out of memory on the device");
          }
        };
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).meter(failing).backend(throwing).build()) {
      ServeException e = engineFailed(s, chain, GrantFixture.request("hello", 10, CEILING));
      assertThat(e.getCause().getSuppressed()).hasSize(1);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  private ServeException engineFailed(Steward s, GrantChain chain, ServeRequest req) {
    Throwable t =
        catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
    assertThat(t)
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
    return (ServeException) t;
  }
}
