package org.meshjava.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import org.jspecify.annotations.Nullable;

/**
 * The CPU time of this whole JVM, threads that have ended included, from one clock for the whole
 * run: on 64-bit Linux the process's CPU-time clock ({@code
 * clock_gettime(CLOCK_PROCESS_CPUTIME_ID)}, nanoseconds, through the foreign-function API) when a
 * first call answers; otherwise the {@code OperatingSystemMXBean}'s process CPU time, which on
 * Linux counts 10 ms clock ticks.
 *
 * <p>The choice is made once, when the clock is made. A figure is the difference of two readings,
 * so a reading from the other clock between them would make it meaningless: once the native clock
 * is chosen, a call that fails is refused with {@link IllegalStateException} rather than answered
 * from the bean. Only what the call can throw is caught (a refused native access, a wrong type); an
 * {@link Error}, the JVM failing, passes as it was thrown. Immutable and thread-safe.
 */
final class ProcessCpuClock {
  /** Linux's id of the process CPU-time clock. */
  private static final int CLOCK_PROCESS_CPUTIME_ID = 2;

  /** {@code int clock_gettime(clockid_t, struct timespec *)}; null when the bean answers. */
  private final @Nullable MethodHandle clock;

  private ProcessCpuClock(@Nullable MethodHandle clock) {
    this.clock = clock;
  }

  /** This process's clock: the native one where it links and answers, else the bean. */
  static ProcessCpuClock ofThisProcess() {
    return choose(linked());
  }

  /**
   * The clock over {@code handle} (of type {@code (int, MemorySegment)int}, as {@code
   * clock_gettime}) when one first call of it answers, else the bean's, for good.
   */
  static ProcessCpuClock choose(@Nullable MethodHandle handle) {
    if (handle != null) {
      try {
        read(handle);
        return new ProcessCpuClock(handle);
      } catch (IllegalStateException e) {
        // Fall through: the bean's coarser figure, for the whole run.
      }
    }
    return new ProcessCpuClock(null);
  }

  /** Whether the readings are the native clock's (else the bean's ticks). */
  boolean isNative() {
    return clock != null;
  }

  /**
   * CPU time of the whole process, in ns.
   *
   * @throws IllegalStateException if the native clock, once chosen, fails
   */
  long nanos() {
    if (clock == null) {
      return ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
          .getProcessCpuTime();
    }
    return read(clock);
  }

  private static long read(MethodHandle handle) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment timespec = arena.allocate(16, 8);
      int rc;
      try {
        rc = (int) handle.invokeExact(CLOCK_PROCESS_CPUTIME_ID, timespec);
      } catch (RuntimeException e) {
        // A downcall refused (native access denied at the call) or of the wrong type.
        throw new IllegalStateException("clock_gettime could not be called: " + e, e);
      } catch (Error e) {
        throw e;
      } catch (Throwable e) {
        // A downcall declares Throwable but throws nothing checked.
        throw new IllegalStateException("clock_gettime threw " + e, e);
      }
      if (rc != 0) {
        throw new IllegalStateException("clock_gettime returned " + rc);
      }
      return timespec.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L
          + timespec.get(ValueLayout.JAVA_LONG, 8);
    }
  }

  /** {@code clock_gettime} on 64-bit Linux, linked; null elsewhere or where it cannot be. */
  private static @Nullable MethodHandle linked() {
    if (!System.getProperty("os.name", "").startsWith("Linux")
        || !System.getProperty("os.arch", "").matches("amd64|x86_64|aarch64")) {
      return null;
    }
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("clock_gettime")
          .map(
              f ->
                  linker.downcallHandle(
                      f,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
          .orElse(null);
    } catch (RuntimeException e) {
      // Native access refused (--enable-native-access without this module, or --illegal-native
      // -access=deny): the bean's coarser figure instead.
      return null;
    }
  }
}
