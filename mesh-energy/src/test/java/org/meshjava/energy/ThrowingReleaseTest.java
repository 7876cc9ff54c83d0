package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * A channel whose release throws (a native shutdown failing, a stack overflow in a driver binding,
 * the heap gone) costs no other counter its release: the meter's close releases every counter.
 * Anything but the JVM failing ({@code JvmFailure}) is logged and the close returns; the JVM
 * failing is thrown on once every counter is released, as the one rule for it says.
 */
class ThrowingReleaseTest {
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();
  private final AtomicInteger releases = new AtomicInteger();

  /**
   * A counter of {@code domain} whose release is counted, then throws what {@code thrown} makes.
   */
  private EnergyChannel releaseThrows(EnergyDomain domain, Supplier<? extends Throwable> thrown) {
    return new ForwardingChannel(TimedCounter.rapl(domain, clock)) {
      @Override
      public void release() {
        releases.incrementAndGet();
        Throwable t = thrown.get();
        if (t instanceof Error e) {
          throw e;
        }
        throw (RuntimeException) t;
      }
    };
  }

  /** A meter over two counters, each of whose release throws what {@code thrown} makes. */
  private CounterMeter twoCountersWhoseReleaseThrows(Supplier<? extends Throwable> thrown) {
    return ProbedMeter.unprobed(
        clock,
        reprobes::add,
        releaseThrows(EnergyDomain.cpuPackage(0), thrown),
        releaseThrows(EnergyDomain.cpuPackage(1), thrown));
  }

  private void everyCounterIsReleased_andTheCloseReturns(Supplier<? extends Throwable> thrown) {
    CounterMeter meter = twoCountersWhoseReleaseThrows(thrown);

    String log = CounterLogLevelsTest.logOf(meter::close);

    assertThat(releases).as("both counters released").hasValue(2);
    assertThat(log).contains("releasing energy counter").contains("failed");
  }

  @Test
  void aReleaseThrowingUnchecked_releasesTheOtherCounters() {
    everyCounterIsReleased_andTheCloseReturns(() -> new IllegalStateException("shutdown failed"));
  }

  /**
   * Regression: an Error escaped the ledger's release and the close, the next counter unreleased.
   */
  @Test
  void aReleaseThrowingAnError_releasesTheOtherCounters_andTheCloseReturns() {
    everyCounterIsReleased_andTheCloseReturns(() -> new LinkageError("binding gone"));
  }

  @Test
  void aReleaseOverflowingItsStack_isItsOwnFailure_andTheCloseReturns() {
    everyCounterIsReleased_andTheCloseReturns(StackOverflowError::new);
  }

  /**
   * Regression: a release threw an Error whose words throw (asking it its message fails); the WARN
   * that logs it asked for them, and their throw escaped the ledger's release and the close.
   */
  @Test
  void aReleaseThrowingAnErrorWhoseWordsThrow_isLogged_andTheCloseReturns() {
    everyCounterIsReleased_andTheCloseReturns(
        () ->
            new LinkageError() {
              @Override
              public String getMessage() {
                throw new IllegalStateException("no words");
              }
            });
  }

  /** Regression: the first release's OutOfMemoryError left the second counter unreleased. */
  @Test
  void theJvmFailingInARelease_isThrownOn_onceEveryCounterIsReleased() {
    List<OutOfMemoryError> thrown = new ArrayList<>();
    CounterMeter meter =
        twoCountersWhoseReleaseThrows(
            () -> {
              OutOfMemoryError e = new OutOfMemoryError("Java heap space");
              thrown.add(e);
              return e;
            });

    assertThatThrownBy(meter::close)
        .isSameAs(thrown.get(0))
        .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(thrown.get(1)));
    assertThat(releases).as("both counters released").hasValue(2);
  }
}
