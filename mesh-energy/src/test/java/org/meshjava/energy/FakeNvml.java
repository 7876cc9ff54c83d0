package org.meshjava.energy;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * Compiles {@code fake_nvml.c} into a {@code libnvidia-ml.so.1} in a temp dir (once per JVM) and
 * binds its {@code fake_nvml_*} setters through FFM. Tests that need it skip, saying why, where gcc
 * is missing, except on CI ({@code CI=true}), where a missing gcc fails them.
 */
final class FakeNvml {
  private static Path library;
  private static String skipReason;
  private static MethodHandle reset;
  private static MethodHandle setInitError;
  private static MethodHandle setDeviceCount;
  private static MethodHandle script;
  private static MethodHandle setEnergyError;
  private static MethodHandle shutdownCalls;
  private static MethodHandle setUuid;
  private static MethodHandle setPciBus;
  private static MethodHandle setMigMode;
  private static MethodHandle failCalls;
  private static MethodHandle setPowerLimitMax;
  private static MethodHandle setStep;
  private static MethodHandle draw;
  private static MethodHandle advance;

  /** The calls of discovery {@link #failCalls} can make fail, in the fake's order. */
  enum DiscoveryCall {
    COUNT,
    HANDLE,
    UUID,
    INIT,
    POWER_LIMIT,
    /** The MIG mode of a board that can do MIG (one that cannot answers without failing). */
    MIG
  }

  private FakeNvml() {}

  /** The compiled library's path; skips the calling test if it cannot be built. */
  static synchronized Path library() {
    if (library == null && skipReason == null) {
      build();
    }
    assumeTrue(skipReason == null, () -> "skipping the fake-NVML FFM test: " + skipReason);
    return library;
  }

  /** Puts the fake back to one idle GPU with an advancing counter. */
  static void reset() {
    library();
    invoke(
        () -> {
          reset.invokeExact();
        });
  }

  static void setInitError(int code) {
    invoke(
        () -> {
          setInitError.invokeExact(code);
        });
  }

  static void setDeviceCount(int count) {
    invoke(
        () -> {
          setDeviceCount.invokeExact(count);
        });
  }

  /** Each read adds {@code step} mJ, or {@code step * every} on every Nth read; 0 freezes. */
  static void script(int device, long startMj, long stepMj, int every) {
    invoke(
        () -> {
          script.invokeExact(device, startMj, stepMj, every);
        });
  }

  static void setEnergyError(int device, int code) {
    invoke(
        () -> {
          setEnergyError.invokeExact(device, code);
        });
  }

  static void setUuid(int device, String uuid) {
    invoke(
        () -> {
          try (Arena arena = Arena.ofConfined()) {
            setUuid.invokeExact(device, arena.allocateFrom(uuid));
          }
        });
  }

  static void setPciBus(int device, int bus) {
    invoke(
        () -> {
          setPciBus.invokeExact(device, bus);
        });
  }

  /** 0 off, 1 on; -1 a board that cannot do MIG (the default). */
  static void setMigMode(int device, int mode) {
    invoke(
        () -> {
          setMigMode.invokeExact(device, mode);
        });
  }

  /**
   * The next {@code times} calls of {@code call} answer NVML error {@code code}; a negative {@code
   * times} fails every call until {@link #reset()}.
   */
  static void failCalls(DiscoveryCall call, int code, int times) {
    invoke(
        () -> {
          failCalls.invokeExact(call.ordinal(), code, times);
        });
  }

  /**
   * The most the board's power limit may be set to, in mW; 0 answers NOT_SUPPORTED (the default).
   */
  static void setPowerLimitMax(int device, int milliwatts) {
    invoke(
        () -> {
          setPowerLimitMax.invokeExact(device, milliwatts);
        });
  }

  /** What each read adds from now on, in mJ, keeping the counter's value. */
  static void setStep(int device, long stepMj) {
    invoke(
        () -> {
          setStep.invokeExact(device, stepMj);
        });
  }

  /**
   * From now on board {@code device} draws {@code milliwatts} over {@code clock}'s time, published
   * every {@code refreshNanos} as a real board refreshes its counter, instead of adding energy at
   * each read: its counter then holds still between refreshes, however often it is read, so a meter
   * whose watch reads it is held to the stall rule as on a real board.
   */
  static void draw(int device, long milliwatts, long refreshNanos, FakeClock clock) {
    invoke(
        () -> {
          draw.invokeExact(device, milliwatts, refreshNanos);
        });
    synchronized (FOLLOWED) {
      if (FOLLOWED.add(clock)) {
        clock.onAdvance(
            nanos ->
                invoke(
                    () -> {
                      advance.invokeExact(nanos);
                    }));
      }
    }
  }

  /** The clocks whose moves already reach the fake: each once, however often a test draws. */
  private static final java.util.Set<FakeClock> FOLLOWED =
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

  static int shutdownCalls() {
    try {
      return (int) shutdownCalls.invokeExact();
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  private interface Call {
    void run() throws Throwable;
  }

  private static void invoke(Call call) {
    try {
      call.run();
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  private static void build() {
    FakeNativeBuild built = FakeNativeBuild.compile("fake_nvml.c", "libnvidia-ml.so.1");
    if (built.library().isEmpty()) {
      skipReason = built.skipReason();
      return;
    }
    bind(built.library().get());
    library = built.library().get();
  }

  @SuppressWarnings("restricted") // binding the fake's setters is the point
  private static void bind(Path lib) {
    Linker linker = Linker.nativeLinker();
    // Global arena: the test keeps the library loaded, so its state survives meters closing it.
    SymbolLookup lookup = SymbolLookup.libraryLookup(lib, Arena.global());
    reset =
        linker.downcallHandle(lookup.findOrThrow("fake_nvml_reset"), FunctionDescriptor.ofVoid());
    setInitError =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_init_error"), FunctionDescriptor.ofVoid(JAVA_INT));
    setDeviceCount =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_device_count"), FunctionDescriptor.ofVoid(JAVA_INT));
    script =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_script"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    setEnergyError =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_energy_error"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
    shutdownCalls =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_shutdown_calls"), FunctionDescriptor.of(JAVA_INT));
    setUuid =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_uuid"),
            FunctionDescriptor.ofVoid(JAVA_INT, java.lang.foreign.ValueLayout.ADDRESS));
    setPciBus =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_pci_bus"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
    setMigMode =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_mig_mode"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
    setPowerLimitMax =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_power_limit_max"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
    setStep =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_set_step"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG));
    draw =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_draw"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG, JAVA_LONG));
    advance =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_advance"), FunctionDescriptor.ofVoid(JAVA_LONG));
    failCalls =
        linker.downcallHandle(
            lookup.findOrThrow("fake_nvml_fail_calls"),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT, JAVA_INT));
  }
}
