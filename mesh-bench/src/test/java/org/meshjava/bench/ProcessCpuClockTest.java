package org.meshjava.bench;

import static java.lang.invoke.MethodType.methodType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/**
 * {@code ServeAbTiming}'s process figure is the difference of two readings, so both must come from
 * one clock, and the JVM failing inside the native call must not be taken for a clock that cannot
 * be called (it was caught as any {@code Throwable}, and the bean's 10 ms ticks answered instead).
 * The native call is replaced here by a scripted handle of {@code clock_gettime}'s type.
 */
class ProcessCpuClockTest {
  /** A {@code clock_gettime} that answers the scripted return codes in turn, at 7 s 5 ns. */
  static final class Scripted {
    private final Deque<Integer> codes;

    Scripted(Integer... codes) {
      this.codes = new ArrayDeque<>(Arrays.asList(codes));
    }

    int call(int clockId, MemorySegment timespec) {
      timespec.set(ValueLayout.JAVA_LONG, 0, 7);
      timespec.set(ValueLayout.JAVA_LONG, 8, 5);
      return codes.remove();
    }

    MethodHandle handle() throws ReflectiveOperationException {
      return MethodHandles.lookup()
          .findVirtual(
              Scripted.class, "call", methodType(int.class, int.class, MemorySegment.class))
          .bindTo(this);
    }
  }

  private static MethodHandle throwing(Throwable t) {
    MethodHandle thrower =
        MethodHandles.insertArguments(MethodHandles.throwException(int.class, t.getClass()), 0, t);
    return MethodHandles.dropArguments(thrower, 0, int.class, MemorySegment.class);
  }

  @Test
  void theJvmFailingInTheNativeCall_passesAsItWasThrown() {
    OutOfMemoryError failing = new OutOfMemoryError("scripted");
    assertThatThrownBy(() -> ProcessCpuClock.choose(throwing(failing))).isSameAs(failing);
  }

  @Test
  void aNativeClockThatFailsOnceChosen_isRefused_neverAnsweredByTheBean() throws Exception {
    ProcessCpuClock clock = ProcessCpuClock.choose(new Scripted(0, 0, -1).handle());
    assertThat(clock.isNative()).isTrue();
    assertThat(clock.nanos()).isEqualTo(7_000_000_005L);
    assertThatThrownBy(clock::nanos)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("clock_gettime returned -1");
  }

  @Test
  void aNativeClockThatFailsItsFirstCall_leavesTheBeanForTheWholeRun() throws Exception {
    // Were the native clock asked again, its second answer (0: 7 s 5 ns) would show.
    ProcessCpuClock clock = ProcessCpuClock.choose(new Scripted(-1, 0, 0).handle());
    assertThat(clock.isNative()).isFalse();
    assertThat(clock.nanos()).isNotEqualTo(7_000_000_005L);
    assertThat(clock.nanos()).isNotEqualTo(7_000_000_005L);
  }

  @Test
  void aCallThatIsRefused_leavesTheBean() {
    ProcessCpuClock clock =
        ProcessCpuClock.choose(throwing(new IllegalCallerException("native access refused")));
    assertThat(clock.isNative()).isFalse();
  }

  @Test
  void onLinux_theNativeClockIsChosen_andCounts() {
    assumeTrue(System.getProperty("os.name", "").startsWith("Linux"), "not Linux");
    ProcessCpuClock clock = ProcessCpuClock.ofThisProcess();
    assertThat(clock.isNative()).isTrue();
    assertThat(clock.nanos()).isPositive();
  }
}
