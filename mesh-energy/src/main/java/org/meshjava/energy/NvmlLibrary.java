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
import java.nio.file.Path;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * NVIDIA's management library bound through the FFM API, no JNI. Only the six calls an energy
 * meter needs: {@code nvmlInit_v2}, {@code nvmlDeviceGetCount_v2}, {@code
 * nvmlDeviceGetHandleByIndex_v2}, {@code nvmlDeviceGetTotalEnergyConsumption} (millijoules since
 * the driver loaded, an {@code unsigned long long}), {@code nvmlErrorString} and {@code
 * nvmlShutdown}. Every call returns an {@code nvmlReturn_t}; anything but 0 becomes a {@link
 * CounterException} carrying NVML's own text for the code.
 *
 * <p>Thread-safe: NVML's calls are; the library is initialised once and shut down when the last
 * channel over it is released.
 */
final class NvmlLibrary {
  private static final int NVML_SUCCESS = 0;

  private final String library;
  private final Arena arena;
  private final MethodHandle init;
  private final MethodHandle shutdown;
  private final MethodHandle errorString;
  private final MethodHandle deviceCount;
  private final MethodHandle handleByIndex;
  private final MethodHandle totalEnergy;
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
  }

  /**
   * Loads and initialises NVML.
   *
   * @param library a path (contains {@code /}) or a name for the dynamic loader
   * @throws CounterException {@link CounterIssue#LIBRARY_MISSING} if it cannot be loaded or
   *     lacks a symbol, {@link CounterIssue#NATIVE_ERROR} if {@code nvmlInit_v2} fails
   */
  @SuppressWarnings("restricted") // loading a native library is the point of this class
  static NvmlLibrary load(String library) throws CounterException {
    Objects.requireNonNull(library, "library");
    Arena arena = Arena.ofShared();
    NvmlLibrary nvml;
    try {
      SymbolLookup lookup =
          library.contains("/")
              ? SymbolLookup.libraryLookup(Path.of(library), arena)
              : SymbolLookup.libraryLookup(library, arena);
      nvml = new NvmlLibrary(library, arena, lookup);
    } catch (IllegalArgumentException | NoSuchElementException e) {
      arena.close();
      throw new CounterException(
          CounterIssue.LIBRARY_MISSING, "cannot load NVML from '" + library + "': " + e.getMessage(),
          e);
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
          CounterIssue.NATIVE_ERROR, call + " failed: " + describe(rc) + " (NVML error " + rc + ")");
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
  private static MethodHandle bind(
      Linker linker, SymbolLookup lookup, String symbol, FunctionDescriptor descriptor) {
    return linker.downcallHandle(lookup.findOrThrow(symbol), descriptor);
  }
}
