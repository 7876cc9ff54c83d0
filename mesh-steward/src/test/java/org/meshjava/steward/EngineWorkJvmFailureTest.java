package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;

/**
 * The JVM failing inside an engine's work (its heap gone, an InternalError) follows the one rule
 * for everything the steward asks an engine ({@link JvmFailure}): the serve is settled at what was
 * metered, its window let go and its debit journalled, and then the error passes as it is, never
 * refused {@code ENGINE_FAILED} as if the backend had failed (HTTP 502 for the process running out
 * of memory). Any other Error of the engine's code, a stack overflow included, is still the backend
 * failing.
 */
class EngineWorkJvmFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  private static Supplier<Error> error(String kind) {
    return switch (kind) {
      case "OutOfMemoryError" -> () -> new OutOfMemoryError("simulated");
      case "InternalError" -> () -> new InternalError("simulated");
      case "StackOverflowError" -> () -> new StackOverflowError("simulated");
      default -> () -> new AssertionError("simulated");
    };
  }

  /** Regression: an OutOfMemoryError from the work was refused ENGINE_FAILED. */
  @ParameterizedTest
  @ValueSource(strings = {"OutOfMemoryError", "InternalError", "StackOverflowError", "Assertion"})
  void theJvmFailingInTheWork_passesSettled_anyOtherErrorIsEngineFailed(String kind)
      throws Exception {
    Supplier<Error> thrown = error(kind);
    List<String> events = new ArrayList<>();
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    StewardGrantTest.Delegating engine =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) {
            throw thrown.get();
          }
        };
    try (Steward s = f.bare(journal).meter(new RecordingMeter(events)).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("the heap goes", 3, CEILING);

      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));

      if (kind.equals("OutOfMemoryError") || kind.equals("InternalError")) {
        assertThat(t).isInstanceOf(thrown.get().getClass()).hasMessage("simulated");
      } else {
        assertThat(t)
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      }
      assertThat(events).containsExactly("open", "close");
      long debited = BUDGET - s.spend().remainingUj(chain);
      assertThat(debited).isGreaterThan(0).isLessThan(CEILING);
      assertThat(journal.records().getLast().entry())
          .isInstanceOfSatisfying(
              JournalEntry.Debited.class, d -> assertThat(d.debitedUj()).isEqualTo(debited));
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();
    }
  }
}
