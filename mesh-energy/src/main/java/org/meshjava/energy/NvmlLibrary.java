package org.meshjava.energy;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

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
final class NvmlLibrary {
  private static final int NVML_SUCCESS = 0;
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
  private int users;
  private boolean shut;

  private NvmlLibrary(String library, Arena arena, SymbolLookup lookup) {
    this.library = library;
    this.arena = arena;
    Linker linker = Linker.nativeLinker();
    this.init = bind(linker, lookup, "nvmlInit_v2", FunctionDescriptor.of(JAVA_INT));
    this.shutdown = bind(linker, lookup, "nvmlShutdown", FunctionDescriptor.of(JAVA_INT));
    this.errorString =
        bind(linker, lookup, "nvmlErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    this.deviceCount =
        bind(linker, lookup, "nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    this.handleByIndex =
        bind(
            linker,
            lookup,
            "nvmlDeviceGetHandleByIndex_v2",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    this.totalEnergy =
        bind(
            linker,
            lookup,
            "nvmlDeviceGetTotalEnergyConsumption",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    this.uuid =
        bind(
            linker,
            lookup,
            "nvmlDeviceGetUUID",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    this.pciInfo =
        bindIfPresent(
            linker,
            lookup,
            "nvmlDeviceGetPciInfo_v3",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    this.migMode =
        bindIfPresent(
            linker,
            lookup,
            "nvmlDeviceGetMigMode",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
  }

  /**
   * Loads and initialises NVML.
   *
   * @param library a path (contains {@code /}) or a name for the dynamic loader
   * @throws CounterException {@link CounterIssue#LIBRARY_MISSING} if it cannot be loaded or lacks a
   *     symbol, {@link CounterIssue#NATIVE_ERROR} if {@code nvmlInit_v2} fails
   */
  @SuppressWarnings("restricted") // loading a native library is the point of this class
  static NvmlLibrary load(String library) throws CounterException {
    Objects.requireNonNull(library, "library");
    Arena arena = Arena.ofShared();
    NvmlLibrary nvml;
    try {
      // The String form hands the name or path to the dynamic loader as it is, as a C program
      // would; the Path form first resolves a real file, which system libraries need not be.
      SymbolLookup lookup = SymbolLookup.libraryLookup(library, arena);
      nvml = new NvmlLibrary(library, arena, lookup);
    } catch (IllegalCallerException | IllegalArgumentException | NoSuchElementException e) {
      arena.close();
      throw CounterException.ofBinding(e, "cannot load NVML from '" + library + "'");
    }
    int rc;
    try {
      rc = (int) nvml.init.invokeExact();
    } catch (Throwable t) {
      arena.close();
      throw new CounterException(CounterIssue.NATIVE_ERROR, "nvmlInit_v2 threw " + t, t);
    }
    if (rc != NVML_SUCCESS) {
      String text = nvml.describe(rc);
      arena.close();
      throw new CounterException(
          CounterIssue.NATIVE_ERROR, "nvmlInit_v2 failed: " + text + " (NVML error " + rc + ")");
    }
    return nvml;
  }

  String library() {
    return library;
  }

  /** The number of GPUs NVML sees. */
  int deviceCount() throws CounterException {
    try (Arena call = Arena.ofConfined()) {
      MemorySegment count = call.allocate(JAVA_INT);
      check("nvmlDeviceGetCount_v2", (int) deviceCount.invokeExact(count));
      return count.get(JAVA_INT, 0);
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw new CounterException(CounterIssue.NATIVE_ERROR, "nvmlDeviceGetCount_v2 threw " + t, t);
    }
  }

  /** The opaque handle of GPU {@code index}. */
  MemorySegment handle(int index) throws CounterException {
    try (Arena call = Arena.ofConfined()) {
      MemorySegment out = call.allocate(ADDRESS);
      check("nvmlDeviceGetHandleByIndex_v2", (int) handleByIndex.invokeExact(index, out));
      return out.get(ADDRESS, 0);
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw new CounterException(
          CounterIssue.NATIVE_ERROR, "nvmlDeviceGetHandleByIndex_v2 threw " + t, t);
    }
  }

  /** The board's UUID, {@code GPU-…}: its identity whatever the enumeration order. */
  String uuid(MemorySegment device) throws CounterException {
    try (Arena call = Arena.ofConfined()) {
      MemorySegment out = call.allocate(UUID_BUFFER);
      check("nvmlDeviceGetUUID", (int) uuid.invokeExact(device, out, UUID_BUFFER));
      return out.getString(0);
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw new CounterException(CounterIssue.NATIVE_ERROR, "nvmlDeviceGetUUID threw " + t, t);
    }
  }

  /**
   * The board's PCI location as {@code (domain << 40) | (bus << 8) | device}, which orders boards
   * as CUDA's {@code PCI_BUS_ID} order does; empty where the driver lacks the call.
   */
  Optional<Long> pciLocation(MemorySegment device) throws CounterException {
    if (pciInfo.isEmpty()) {
      return Optional.empty();
    }
    try (Arena call = Arena.ofConfined()) {
      MemorySegment out = call.allocate(PCI_INFO_SIZE, 4);
      check("nvmlDeviceGetPciInfo_v3", (int) pciInfo.get().invokeExact(device, out));
      long domain = Integer.toUnsignedLong(out.get(JAVA_INT, PCI_DOMAIN));
      long bus = Integer.toUnsignedLong(out.get(JAVA_INT, PCI_BUS));
      long dev = Integer.toUnsignedLong(out.get(JAVA_INT, PCI_DEVICE));
      return Optional.of((domain << 40) | (bus << 8) | dev);
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw new CounterException(
          CounterIssue.NATIVE_ERROR, "nvmlDeviceGetPciInfo_v3 threw " + t, t);
    }
  }

  /** Whether the board runs in MIG mode (partitioned among tenants). */
  boolean migEnabled(MemorySegment device) throws CounterException {
    if (migMode.isEmpty()) {
      return false; // a driver without the call predates MIG
    }
    try (Arena call = Arena.ofConfined()) {
      MemorySegment current = call.allocate(JAVA_INT);
      MemorySegment pending = call.allocate(JAVA_INT);
      int rc = (int) migMode.get().invokeExact(device, current, pending);
      if (rc == NVML_ERROR_NOT_SUPPORTED) {
        return false; // a board that cannot be partitioned
      }
      check("nvmlDeviceGetMigMode", rc);
      return current.get(JAVA_INT, 0) == MIG_ENABLE;
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw new CounterException(CounterIssue.NATIVE_ERROR, "nvmlDeviceGetMigMode threw " + t, t);
    }
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
      throw new CounterException(
          CounterIssue.NATIVE_ERROR, "nvmlDeviceGetTotalEnergyConsumption threw " + t, t);
    }
    check("nvmlDeviceGetTotalEnergyConsumption", rc);
    return out.get(JAVA_LONG, 0);
  }

  /** Registers one more user (a channel) of the library. */
  synchronized void retain() {
    users++;
  }

  /** Drops a user; the last one shuts NVML down and unloads it. */
  synchronized void release() {
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
    } catch (Throwable ignored) {
      // as above
    } finally {
      arena.close();
    }
  }

  private void check(String call, int rc) throws CounterException {
    if (rc != NVML_SUCCESS) {
      throw new CounterException(
          CounterIssue.NATIVE_ERROR,
          call + " failed: " + describe(rc) + " (NVML error " + rc + ")");
    }
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
      return "unknown NVML error (nvmlErrorString threw " + t + ")";
    }
  }

  @SuppressWarnings("restricted") // binding a downcall is the point of this class
  private static Optional<MethodHandle> bindIfPresent(
      Linker linker, SymbolLookup lookup, String symbol, FunctionDescriptor descriptor) {
    return lookup.find(symbol).map(address -> linker.downcallHandle(address, descriptor));
  }

  @SuppressWarnings("restricted") // binding a downcall is the point of this class
  private static MethodHandle bind(
      Linker linker, SymbolLookup lookup, String symbol, FunctionDescriptor descriptor) {
    return linker.downcallHandle(lookup.findOrThrow(symbol), descriptor);
  }
}
