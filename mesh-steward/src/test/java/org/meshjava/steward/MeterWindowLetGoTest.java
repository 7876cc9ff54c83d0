package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;

/**
 * The meter phase lets go of every window it opens, and debits a granted serve for what was
 * metered, whatever the engine hands back and whatever fails while the serve is settled (the
 * engine's cost profile, the meter's close), an {@link Error} as much as a {@link
 * RuntimeException}: a window left open shares its domains with every later one on a hardware meter
 * (graded {@code ModelBased} from then on), and a serve that escapes the phase uncharged is debited
 * its whole ceiling, the figure for work nothing metered.
 *
 * <p>Each case is one regression: the engine and meter a granted serve meets, how the serve is
 * refused, what the meter saw, and what the grant is debited. In every case nothing is sealed and
 * nothing is left unresolved.
 */
class MeterWindowLetGoTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 500_000;
  private static final long UJ_PER_TOKEN = 100;

  /**
   * One way the meter phase can end badly.
   *
   * @param engine the backend, named "ref"
   * @param meter the meter, given the list it may note its events in
   * @param refused checks what the serve threw
   * @param events what the meter noted, in order
   * @param debited the grant's debit for a request of that many prompt tokens
   */
  record Case(
      Supplier<ServingEngine> engine,
      Function<List<String>, EnergyMeter> meter,
      Consumer<Throwable> refused,
      List<String> events,
      LongUnaryOperator debited) {}

  static Stream<Arguments> cases() {
    return Stream.of(
        // An engine returning null escaped as a NullPointerException, its window open. It is
        // charged the estimate of the prompt it was handed, as an engine that throws is.
        Arguments.of(
            "an engine that returns no result",
            new Case(
                () ->
                    new StewardGrantTest.Delegating(reference()) {
                      @Override
                      public @Nullable EngineResult serve(ServeRequest r, TokenSequence p) {
                        return null;
                      }
                    },
                RecordingMeter::new,
                t ->
                    assertThat(engineFailed(t))
                        .hasMessage("ENGINE_FAILED: backend ref failed: it returned no result"),
                List.of("open", "close"),
                promptTokens -> UJ_PER_TOKEN * promptTokens)),
        // A cost profile that failed after the work (engine code too) left the window open.
        // Nothing could put a figure on what ran: the ceiling, as for a crash.
        Arguments.of(
            "a cost profile that throws after the work",
            new Case(
                () ->
                    new ProfileFailsAfterWork(
                        reference(), () -> new IllegalStateException("profile unloaded")),
                RecordingMeter::new,
                MeterWindowLetGoTest::engineFailed,
                List.of("open", "abandon"),
                promptTokens -> CEILING)),
        // A profile's StackOverflowError escaped the meter phase, its window left open.
        Arguments.of(
            "a cost profile that throws an Error after the work",
            new Case(
                () ->
                    new ProfileFailsAfterWork(
                        reference(), () -> new StackOverflowError("profile recursed")),
                RecordingMeter::new,
                MeterWindowLetGoTest::engineFailed,
                List.of("open", "abandon"),
                promptTokens -> CEILING)),
        // A meter that could not open a window debited the grant its ceiling for no work.
        Arguments.of(
            "a meter that cannot open a window",
            new Case(
                MeterWindowLetGoTest::reference,
                events -> new Unopenable(),
                t ->
                    assertThat(t)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage("counter gone"),
                List.of(),
                promptTokens -> 0)),
        // A meter whose close threw an Error after an engine failure escaped the phase.
        Arguments.of(
            "a meter whose close throws an Error after an engine failure",
            new Case(
                () ->
                    new StewardGrantTest.Delegating(reference()) {
                      @Override
                      public EngineResult serve(ServeRequest r, TokenSequence p)
                          throws EngineException {
                        throw new EngineException("out of memory on the device");
                      }
                    },
                events -> BrokenMeter.throwingError(() -> new AssertionError("meter bug")),
                t -> assertThat(engineFailed(t).getCause().getSuppressed()).hasSize(1),
                List.of(),
                promptTokens -> CEILING)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theWindowIsLetGo_andTheGrantDebitedWhatWasMetered(String name, Case c) throws Exception {
    GrantFixture f = new GrantFixture();
    List<String> events = new CopyOnWriteArrayList<>();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .meter(c.meter().apply(events))
            .backend(c.engine().get())
            .build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      c.refused()
          .accept(
              catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req))));
      assertThat(events).containsExactlyElementsOf(c.events());
      assertThat(s.spend().remainingUj(chain))
          .isEqualTo(BUDGET - c.debited().applyAsLong(req.promptTokens()));
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  private static ReferenceEngine reference() {
    return ReferenceEngine.builder()
        .name("ref")
        .costProfile(CostProfile.perToken(UJ_PER_TOKEN))
        .build();
  }

  /** Checks {@code t} is a refusal {@code ENGINE_FAILED}, and returns it. */
  private static ServeException engineFailed(Throwable t) {
    assertThat(t)
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
    return (ServeException) t;
  }

  /** A meter whose counter is gone: it opens no window. */
  private static final class Unopenable implements EnergyMeter {
    @Override
    public String name() {
      return "closed";
    }

    @Override
    public MeterWindow open(Set<EnergyDomain> domains) {
      throw new IllegalStateException("counter gone");
    }
  }
}
