package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Energy;
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
 * A hardware meter passes the JVM failing (an {@link OutOfMemoryError} in another meter's read of
 * the same counter) out of a window's open or close, having let the window go itself. The steward
 * lets it pass as it is ({@link JvmFailure}), never as a refusal that blames the backend, and
 * settles the grant's hold exactly once: nothing for an open that failed (no work ran), the ceiling
 * for work the meter could put no figure on. The next serve finds the hold, the slot and the budget
 * as they should be.
 */
class MeterJvmFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 400_000;

  /** Where the meter's one failure comes. */
  private enum At {
    OPEN,
    CLOSE
  }

  @Test
  void theJvmFailingAtTheMetersOpen_passes_andTheGrantIsDebitedNothing() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    assertPassesAndSettles(
        reference(), new FailingOnce(At.OPEN, events), 0, List.of("open", "close"), events);
  }

  @Test
  void theJvmFailingAtTheMetersClose_passes_andTheGrantIsDebitedItsCeilingOnce() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    assertPassesAndSettles(
        reference(),
        new FailingOnce(At.CLOSE, events),
        CEILING,
        List.of("open", "close", "open", "close"),
        events);
  }

  @Test
  void theJvmFailingAtTheMetersClose_afterTheEngineFailed_passes_andBlamesNoBackend()
      throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    AtomicBoolean failed = new AtomicBoolean();
    ServingEngine failsOnce =
        new StewardGrantTest.Delegating(reference()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            if (failed.compareAndSet(false, true)) {
              throw new EngineException("device lost");
            }
            return super.serve(r, p);
          }
        };
    assertPassesAndSettles(
        failsOnce,
        new FailingOnce(At.CLOSE, events),
        CEILING,
        List.of("open", "close", "open", "close"),
        events);
  }

  /**
   * Serves twice on one grant: the first meets the meter's {@link OutOfMemoryError}, which must
   * come out of the serve as it is, with the grant debited {@code firstDebit} and nothing sealed or
   * unresolved; the second is served, sealed and debited from what was left.
   */
  private static void assertPassesAndSettles(
      ServingEngine engine,
      FailingOnce meter,
      long firstDebit,
      List<String> expectedEvents,
      List<String> events)
      throws Exception {
    GrantFixture f = new GrantFixture();
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.bare(new DurableMemoryJournal()).meter(meter).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      Throwable thrown =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      assertThat(thrown).as("what the serve threw").isSameAs(meter.failure);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - firstDebit);
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();

      ServeResult second = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(second.receipt()).isNotNull();
      assertThat(s.spend().remainingUj(chain)).isLessThan(BUDGET - firstDebit);
      assertThat(s.unresolved()).isEmpty();
      assertThat(events).containsExactlyElementsOf(expectedEvents);
    }
  }

  private static ReferenceEngine reference() {
    return ReferenceEngine.builder().name("ref").costProfile(CostProfile.perToken(100)).build();
  }

  /**
   * A meter that throws an {@link OutOfMemoryError} once, at an open or a close, as a hardware
   * meter does when another meter's read of its counter meets it; it notes each open and close.
   */
  private static final class FailingOnce implements EnergyMeter {
    private final At at;
    private final List<String> events;
    private final AtomicBoolean spent = new AtomicBoolean();
    final OutOfMemoryError failure = new OutOfMemoryError("Java heap space");

    FailingOnce(At at, List<String> events) {
      this.at = at;
      this.events = events;
    }

    @Override
    public String name() {
      return "failing-once";
    }

    @Override
    public MeterWindow open(Set<EnergyDomain> domains) {
      if (at == At.OPEN && spent.compareAndSet(false, true)) {
        throw failure;
      }
      events.add("open");
      return new MeterWindow() {
        @Override
        public Energy close(long estimatedUj) {
          events.add("close");
          if (at == At.CLOSE && spent.compareAndSet(false, true)) {
            throw failure;
          }
          return Energy.estimated(estimatedUj);
        }

        @Override
        public void abandon() {
          events.add("abandon");
        }
      };
    }
  }
}
