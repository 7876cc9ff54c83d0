package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;

/**
 * The meter phase lets go of every window it opens, and debits a granted serve for what was
 * metered, whatever the engine hands back: a window left open shares its domains with every later
 * one on a hardware meter (graded {@code ModelBased} from then on), and a serve that escapes the
 * phase uncharged is debited its whole ceiling, the figure for work nothing metered.
 */
class MeterWindowLetGoTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 500_000;
  private static final long UJ_PER_TOKEN = 100;

  private final GrantFixture f = new GrantFixture();
  private final List<String> events = new CopyOnWriteArrayList<>();

  private static ReferenceEngine reference() {
    return ReferenceEngine.builder()
        .name("ref")
        .costProfile(CostProfile.perToken(UJ_PER_TOKEN))
        .build();
  }

  /** Regression: an engine returning null escaped as a NullPointerException, its window open. */
  @Test
  void anEngineThatReturnsNoResult_isRefusedEngineFailed_itsWindowClosed_andMeteredDebited()
      throws Exception {
    StewardGrantTest.Delegating nothing =
        new StewardGrantTest.Delegating(reference()) {
          @Override
          public @Nullable EngineResult serve(ServeRequest r, TokenSequence p) {
            return null;
          }
        };
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal()).meter(recording()).backend(nothing).build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      assertThat(engineFailed(s, chain, req))
          .hasMessage("ENGINE_FAILED: backend ref failed: it returned no result");
      assertThat(events).containsExactly("open", "close");
      // The estimate of the prompt the engine was handed, as for an engine that throws.
      assertThat(s.spend().remainingUj(chain))
          .isEqualTo(BUDGET - UJ_PER_TOKEN * req.promptTokens());
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /**
   * Regression: an engine whose cost profile failed after the work (engine code too) left its
   * window open; it is refused as an engine failure, its window let go.
   */
  @Test
  void aCostProfileThatFailsAfterTheWork_letsTheWindowGo() throws Exception {
    ProfileFailsAfterWork broken =
        new ProfileFailsAfterWork(reference(), () -> new IllegalStateException("profile unloaded"));
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal()).meter(recording()).backend(broken).build()) {
      engineFailed(s, chain, GrantFixture.request("hello", 10, CEILING));
      assertThat(events).containsExactly("open", "abandon");
      // Nothing could put a figure on what ran: the ceiling, as for a crash.
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
      assertThat(s.unresolved()).isEmpty();
    }
  }

  /** Regression: a meter that could not open a window debited the grant its ceiling for no work. */
  @Test
  void aMeterThatCannotOpenAWindow_debitsNothing() throws Exception {
    EnergyMeter closed =
        new EnergyMeter() {
          @Override
          public String name() {
            return "closed";
          }

          @Override
          public MeterWindow open(Set<EnergyDomain> domains) {
            throw new IllegalStateException("counter gone");
          }
        };
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal()).meter(closed).backend(reference()).build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      assertThat(t).isInstanceOf(IllegalStateException.class).hasMessage("counter gone");
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /** Serves {@code req} on {@code chain}, which must be refused {@code ENGINE_FAILED}. */
  private ServeException engineFailed(Steward s, GrantChain chain, ServeRequest req) {
    Throwable t =
        catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
    assertThat(t)
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
    return (ServeException) t;
  }

  private RecordingMeter recording() {
    return new RecordingMeter(events);
  }
}
