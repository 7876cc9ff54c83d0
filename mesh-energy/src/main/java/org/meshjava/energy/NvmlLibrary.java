package org.meshjava.energy;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.meshjava.core.internal.JvmFailure;

/**
 * NVIDIA's management library bound through the FFM API, no JNI. Only the calls an energy meter
 * needs: {@code nvmlInit_v2}, {@code nvmlDeviceGetCount_v2}, {@code nvmlDeviceGetHandleByIndex_v2},
 * {@code nvmlDeviceGetTotalEnergyConsumption} (millijoules since the driver loaded, an {@code
 * unsigned long long}), {@code nvmlDeviceGetUUID} and {@code nvmlDeviceGetPciInfo_v3} (to bind a
 * board to the GPU an engine sees: NVML's index is not CUDA's), {@code nvmlDeviceGetMigMode} (a
 * board in MIG mode is shared), {@code nvmlErrorString} and {@code nvmlShutdown}. The last three
 * device calls are optional: a driver too old to have them has no MIG, and without PCI information
 * only UUIDs bind a board. Every call returns an {@code nvmlReturn_t}; anything but 0 becomes a
 * {@link CounterException} carrying NVML's own text for the code.
 *
 * <p>Thread-safe: NVML's calls are; the library is initialised once and shut down when the last
 * channel over it is released.
 */
final class NvmlLibrary implements SharedNative {
  private static final int NVML_SUCCESS = 0;

  /** The value nvml.h gives a field that is not available ({@code NVML_VALUE_NOT_AVAILABLE}). */
  private static final int NVML_VALUE_NOT_AVAILABLE = -1;

  private static final int NVML_ERROR_NOT_SUPPORTED = 3;

  /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}. */
  private static final int UUID_BUFFER = 96;

  /** {@code sizeof(nvmlPciInfo_t)}: busIdLegacy[16], five unsigned ints, busId[32]. */
  private static final int PCI_INFO_SIZE = 68;

  /** Offsets of {@code domain}, {@code bus} and {@code device} in {@code nvmlPciInfo_t}. */
  private static final int PCI_DOMAIN = 16;

  private static final int PCI_BUS = 20;
  private static final int PCI_DEVICE = 24;

  /** {@code NVML_DEVICE_MIG_ENABLE}. */
  private static final int MIG_ENABLE = 1;

  /**
   * The return codes that name a condition of the moment, not of the board, whichever call answers
   * them (an energy read, or {@code nvmlInit_v2} and the count, handle, UUID, PCI, MIG and
   * power-limit calls discovery makes, which {@link MomentaryRetry} tries again): {@code
   * NVML_ERROR_TIMEOUT}, {@code IN_USE}, {@code MEMORY}, {@code NO_DATA}, {@code
   * INSUFFICIENT_RESOURCES}, {@code NOT_READY} ("the system is not ready for the request", which
   * users have seen an H100 answer to the energy read with no lasting fault named, pynvml issue
   * 54), {@code INVALID_STATE} and {@code UNKNOWN} (nvml.h lists it for these calls as "any
   * unexpected error"). Such a failure is {@link CounterIssue#READ_FAILED}, and discovery keeps the
   * board for the meter's re-probes. Every other code is {@link CounterIssue#NATIVE_ERROR}: nvml.h
   * documents {@code NOT_SUPPORTED} for the energy read as a device that does not support energy
   * readings (before Volta, Tegra boards), {@code GPU_IS_LOST} as a board off the bus, and the rest
   * name a setup that a retry does not change (no permission, a driver and library of different
   * versions, a missing function).
   */
  private static final Set<Integer> MOMENTARY = Set.of(10, 19, 20, 21, 23, 27, 29, 999);

  private final String library;
  private final Arena arena;
  private final MethodHandle init;
  private final MethodHandle shutdown;
  private final MethodHandle errorString;
  private final MethodHandle deviceCount;
  private final MethodHandle handleByIndex;
  private final MethodHandle totalEnergy;
  private final MethodHandle uuid;
  private final Optional<MethodHandle> pciInfo;
  private final Optional<MethodHandle> migMode;
  private final Optional<MethodHandle> limitConstraints;
  private int users;
  private boolean shut;

  private NvmlLibrary(String library, Arena arena, NativeSymbols nvml) {
    this.library = library;
    this.arena = arena;
    this.init = nvml.function("nvmlInit_v2", JAVA_INT);
    this.shutdown = nvml.function("nvmlShutdown", JAVA_INT);
    this.errorString = nvml.function("nvmlErrorString", ADDRESS, JAVA_INT);
    this.deviceCount = nvml.function("nvmlDeviceGetCount_v2", JAVA_INT, ADDRESS);
    this.handleByIndex =
        nvml.function("nvmlDeviceGetHandleByIndex_v2", JAVA_INT, JAVA_INT, ADDRESS);
    this.totalEnergy =
        nvml.function("nvmlDeviceGetTotalEnergyConsumption", JAVA_INT, ADDRESS, ADDRESS);
    this.uuid = nvml.function("nvmlDeviceGetUUID", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    this.pciInfo = nvml.optionalFunction("nvmlDeviceGetPciInfo_v3", JAVA_INT, ADDRESS, ADDRESS);
    this.migMode =
        nvml.optionalFunction("nvmlDeviceGetMigMode", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    this.limitConstraints =
        nvml.optionalFunction(
            "nvmlDeviceGetPowerManagementLimitConstraints", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
  }

  /**
   * Loads and initialises NVML, trying {@code nvmlInit_v2} again through {@code retry} while it
   * answers a {@link #MOMENTARY} code: nvml.h lists {@code UNKNOWN} among its answers, and one at a
   * start would otherwise lose NVML for the life of the process.
   *
   * @param library a path (contains {@code /}) or a name for the dynamic loader
   * @param retry the budget of the discovery this load is part of
   * @throws CounterException {@link CounterIssue#LIBRARY_MISSING} if it cannot be loaded or lacks a
   *     symbol, {@link CounterIssue#READ_FAILED} if {@code nvmlInit_v2} still fails with a code of
   *     the moment when the budget is spent, {@link CounterIssue#NATIVE_ERROR} if it fails with any
   *     other (nvml.h's {@code DRIVER_NOT_LOADED}, {@code NO_PERMISSION}: no retry changes those)
   */
  static NvmlLibrary load(String library, MomentaryRetry retry) throws CounterException {
    Objects.requireNonNull(library, "library");
    Objects.requireNonNull(retry, "retry");
    Arena arena = Arena.ofShared();
    NvmlLibrary nvml;
    try {
      nvml = new NvmlLibrary(library, arena, NativeSymbols.load(library, arena));
    } catch (IllegalCallerException | IllegalArgumentException | NoSuchElementException e) {
      arena.close();
      throw CounterException.ofBinding(e, "cannot load NVML from '" + library + "'");
    }
    try {
      retry.call(nvml::initialise);
    } catch (CounterException e) {
      arena.close(); // no nvmlShutdown: a failed nvmlInit_v2 leaves nothing to shut down
      throw e;
    }
    return nvml;
  }

  /** One call of {@code nvmlInit_v2}. */
  private boolean initialise() throws CounterException {
    return call(
        "nvmlInit_v2",
        (symbol, memory) -> {
          check(symbol, (int) init.invokeExact());
          return true;
        });
  }

  String library() {
    return library;
  }

  /** The number of GPUs NVML sees. */
  int deviceCount() throws CounterException {
    return call(
        "nvmlDeviceGetCount_v2",
        (symbol, memory) -> {
          MemorySegment count = memory.allocate(JAVA_INT);
          check(symbol, (int) deviceCount.invokeExact(count));
          return count.get(JAVA_INT, 0);
        });
  }

  /** The opaque handle of GPU {@code index}. */
  MemorySegment handle(int index) throws CounterException {
    return call(
        "nvmlDeviceGetHandleByIndex_v2",
        (symbol, memory) -> {
          MemorySegment out = memory.allocate(ADDRESS);
          check(symbol, (int) handleByIndex.invokeExact(index, out));
          return out.get(ADDRESS, 0);
        });
  }

  /** The board's UUID, {@code GPU-…}: its identity whatever the enumeration order. */
  String uuid(MemorySegment device) throws CounterException {
    return call(
        "nvmlDeviceGetUUID",
        (symbol, memory) -> {
          MemorySegment out = memory.allocate(UUID_BUFFER);
          check(symbol, (int) uuid.invokeExact(device, out, UUID_BUFFER));
          return out.getString(0);
        });
  }

  /**
   * The board's PCI location as {@code (domain << 40) | (bus << 8) | device}, which orders boards
   * as CUDA's {@code PCI_BUS_ID} order does; empty where the driver lacks the call.
   */
  Optional<Long> pciLocation(MemorySegment device) throws CounterException {
    if (pciInfo.isEmpty()) {
      return Optional.empty();
    }
    MethodHandle function = pciInfo.get();
    return call(
        "nvmlDeviceGetPciInfo_v3",
        (symbol, memory) -> {
          MemorySegment out = memory.allocate(PCI_INFO_SIZE, 4);
          check(symbol, (int) function.invokeExact(device, out));
          long domain = Integer.toUnsignedLong(out.get(JAVA_INT, PCI_DOMAIN));
          long bus = Integer.toUnsignedLong(out.get(JAVA_INT, PCI_BUS));
          long dev = Integer.toUnsignedLong(out.get(JAVA_INT, PCI_DEVICE));
          return Optional.of((domain << 40) | (bus << 8) | dev);
        });
  }

  /** Whether the board runs in MIG mode (partitioned among tenants). */
  boolean migEnabled(MemorySegment device) throws CounterException {
    if (migMode.isEmpty()) {
      return false; // a driver without the call predates MIG
    }
    MethodHandle function = migMode.get();
    return call(
        "nvmlDeviceGetMigMode",
        (symbol, memory) -> {
          MemorySegment current = memory.allocate(JAVA_INT);
          MemorySegment pending = memory.allocate(JAVA_INT);
          int rc = (int) function.invokeExact(device, current, pending);
          if (rc == NVML_ERROR_NOT_SUPPORTED) {
            return false; // a board that cannot be partitioned
          }
          check(symbol, rc);
          return current.get(JAVA_INT, 0) == MIG_ENABLE;
        });
  }

  /**
   * The most the board's power limit may be set to, in mW ({@code
   * nvmlDeviceGetPowerManagementLimitConstraints}); empty where the driver lacks the call, the
   * board answers {@code NOT_SUPPORTED}, or it answers the value nvml.h gives a field not
   * available. The figure is optional, as a RAPL zone's constraint files are: a board without it is
   * held to {@link PowerBound#GPU_BOARD}.
   *
   * @throws CounterException any other failure, {@link CounterIssue#READ_FAILED} for a {@link
   *     #MOMENTARY} code, so that discovery can try again before it settles for the 2 kW bound
   */
  OptionalLong maxPowerLimitMw(MemorySegment device) throws CounterException {
    if (limitConstraints.isEmpty()) {
      return OptionalLong.empty();
    }
    MethodHandle function = limitConstraints.get();
    return call(
        "nvmlDeviceGetPowerManagementLimitConstraints",
        (symbol, memory) -> {
          MemorySegment min = memory.allocate(JAVA_INT);
          MemorySegment max = memory.allocate(JAVA_INT);
          int rc = (int) function.invokeExact(device, min, max);
          if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED) {
            throw failure(symbol, rc); // a board without the figure is no failure
          }
          int most = max.get(JAVA_INT, 0);
          // All ones is nvml.h's NVML_VALUE_NOT_AVAILABLE: read as 4.29 MW, it would hold the
          // board to a bound that refuses almost nothing.
          return rc == NVML_SUCCESS && most != NVML_VALUE_NOT_AVAILABLE
              ? OptionalLong.of(Integer.toUnsignedLong(most))
              : OptionalLong.empty();
        });
  }

  /** A buffer for {@link #totalEnergyMj}, living as long as the library. */
  MemorySegment energyBuffer() {
    return arena.allocate(JAVA_LONG);
  }

  /**
   * Reads a GPU's energy in mJ since the driver loaded, as an unsigned 64-bit value in a long.
   *
   * @param out an {@link #energyBuffer()}, used by one thread at a time
   */
  long totalEnergyMj(MemorySegment device, MemorySegment out) throws CounterException {
    int rc;
    try {
      rc = (int) totalEnergy.invokeExact(device, out);
    } catch (Throwable t) {
      throw threw("nvmlDeviceGetTotalEnergyConsumption", t);
    }
    if (rc != NVML_SUCCESS) {
      throw failure("nvmlDeviceGetTotalEnergyConsumption", rc);
    }
    return out.get(JAVA_LONG, 0);
  }

  /** Registers one more user (a channel) of the library. */
  @Override
  public synchronized void retain() {
    users++;
  }

  /** Drops a user; the last one shuts NVML down and unloads it. */
  @Override
  public synchronized void release() {
    if (--users <= 0 && !shut) {
      shutdownNow();
    }
  }

  /** Shuts NVML down and unloads it, whoever still holds it. Idempotent. */
  synchronized void shutdownNow() {
    if (shut) {
      return;
    }
    shut = true;
    try {
      int unused = (int) shutdown.invokeExact();
      if (unused != NVML_SUCCESS) {
        // Nothing to do about a failed shutdown; the process keeps the driver's state.
        return;
      }
    } catch (Throwable t) {
      // as above, but for the JVM failing, which passes (the arena is closed all the same)
      JvmFailure.passIfFailing(t);
    } finally {
      arena.close();
    }
  }

  /** One NVML call's body: it allocates its out-parameters in {@code memory}, freed after it. */
  @FunctionalInterface
  interface Call<T> {
    T run(String symbol, Arena memory) throws Throwable;
  }

  /**
   * Runs {@code body}, a call of {@code symbol}, with a confined arena for its out-parameters; a
   * {@link CounterException} it throws passes as it is, anything else thrown across the downcall
   * becomes {@link CounterIssue#NATIVE_ERROR} ({@link #threw}). Package-private for the tests: no
   * fake library can make a downcall throw.
   */
  static <T> T call(String symbol, Call<T> body) throws CounterException {
    try (Arena memory = Arena.ofConfined()) {
      return body.run(symbol, memory);
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw threw(symbol, t);
    }
  }

  /**
   * What {@code t}, thrown across a downcall of {@code symbol}, is reported as: {@link
   * CounterIssue#NATIVE_ERROR}, but the JVM failing passes as it is ({@link JvmFailure}), never a
   * failed read that blames the GPU's counter.
   */
  static CounterException threw(String symbol, Throwable t) {
    JvmFailure.passIfFailing(t);
    return new CounterException(CounterIssue.NATIVE_ERROR, symbol + " threw " + t, t);
  }

  private void check(String call, int rc) throws CounterException {
    if (rc != NVML_SUCCESS) {
      throw failure(call, rc);
    }
  }

  /**
   * A failed call, {@link CounterIssue#READ_FAILED} for a {@link #MOMENTARY} code and {@link
   * CounterIssue#NATIVE_ERROR} for the rest, whichever call answered it.
   */
  private CounterException failure(String call, int rc) {
    return new CounterException(
        MOMENTARY.contains(rc) ? CounterIssue.READ_FAILED : CounterIssue.NATIVE_ERROR,
        call + " failed: " + describe(rc) + " (NVML error " + rc + ")");
  }

  /** NVML's own text for an error code. */
  @SuppressWarnings("restricted") // the returned C string has no size until we give it one
  private String describe(int rc) {
    try {
      MemorySegment text = (MemorySegment) errorString.invokeExact(rc);
      if (text.equals(MemorySegment.NULL)) {
        return "unknown NVML error";
      }
      return text.reinterpret(4096).getString(0);
    } catch (Throwable t) {
      JvmFailure.passIfFailing(t);
      return "unknown NVML error (nvmlErrorString threw " + t + ")";
    }
  }
}
