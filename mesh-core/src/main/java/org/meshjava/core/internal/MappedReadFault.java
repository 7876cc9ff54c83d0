package org.meshjava.core.internal;

import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Tells the JVM's fault for a read of a file mapped into memory past the end it has now (a snapshot
 * read in place, SPEC.md §60.9, or a model's weights, cut short by something rewriting the file in
 * place) from any other {@link InternalError}. The JVM reports that fault (SIGBUS) as an {@code
 * InternalError}, which is the file changing, not the JVM or mesh failing. Stateless.
 *
 * <p>The fault is known by where it was thrown, a read of memory outside the heap by the JDK's own
 * code ({@link #NATIVE_MEMORY_READERS}), or else by HotSpot's words for it (a read the compiler
 * inlined into its caller may be reported there): neither alone is a promise of the JVM's, so
 * either will do.
 *
 * <p>Here, below every module that maps a file, so that one rule serves the journal's snapshots,
 * the steward and the command line (through {@code org.meshjava.journal.MappedReadFault}, which
 * delegates here) and an engine that maps its weights (Jlama), which sits below the journal.
 */
public final class MappedReadFault {
  private MappedReadFault() {}

  /**
   * The JDK's classes that read memory outside the heap for a mapped file's buffer or segment: an
   * {@link InternalError} whose first frame is in one of them is the fault of such a read (mesh
   * throws none of its own from there).
   */
  private static final List<String> NATIVE_MEMORY_READERS =
      List.of(
          "java.nio.Direct",
          "java.nio.MappedByteBuffer",
          "jdk.internal.misc.Unsafe",
          "jdk.internal.misc.ScopedMemoryAccess",
          "jdk.internal.foreign.",
          "java.lang.invoke.VarHandleSegment",
          "sun.misc.Unsafe");

  /** HotSpot's words for the fault, in each of its forms. */
  private static final String HOTSPOT_WORDS = "unsafe memory access operation";

  /**
   * How many causes {@link #in} follows: a chain that long is no engine's wrapping of the fault,
   * and a cause cycle (a {@code getCause} overridden to return itself or an earlier one) ends here.
   */
  private static final int MOST_CAUSES = 32;

  /**
   * Whether {@code e} is, or was caused by, the fault of a read of a mapped file past its end; one
   * thrown on another thread (Jlama's forward pass) arrives wrapped, so the causes are followed.
   * Total over any throwable: see {@link #among}.
   */
  public static boolean in(Throwable e) {
    return among(e) != null;
  }

  /**
   * The fault of a read of a mapped file past its end among {@code e} and its first {@value
   * #MOST_CAUSES} causes, the first met; null if none is. Asked from every guard that tells the JVM
   * failing from the code asked failing ({@link JvmFailure}), over throwables of an engine's or a
   * listener's own classes, whose {@code getCause}, {@code getStackTrace} and {@code getMessage}
   * may be overridden to throw, to answer null, or to form a cycle: a throw here would end the
   * guard instead of its typed refusal, so a part that cannot be read says nothing of the fault (a
   * cause that throws ends the chain). Only the JVM failing while one is read (other than a stack
   * overflow, the code's own recursion) passes.
   */
  public static @Nullable InternalError among(Throwable e) {
    Throwable at = e;
    for (int depth = 0; at != null && depth < MOST_CAUSES; depth++) {
      if (at instanceof InternalError internal
          && (thrownReadingNativeMemory(internal) || saysHotspotWords(internal))) {
        return internal;
      }
      at = read(at::getCause);
    }
    return null;
  }

  /**
   * Throws here the fault of a read of a mapped file already done, if HotSpot still holds it back;
   * a guard that turns the fault into a typed refusal calls this last inside the region it guards.
   *
   * <p>Why: code the JIT compiled does not throw the fault at the faulting read. HotSpot skips the
   * read (its value is garbage) and queues the error for the thread, to be thrown at its next
   * safepoint poll; with the read inlined, that may be the method's return or a loop after the
   * {@code try}, so the error escapes the {@code catch} meant for it (JDK 25 does this for {@code
   * MemorySegment} and {@code MappedByteBuffer} reads alike). A thread coming back from a native
   * method takes any queued error there, so a native call that does nothing else brings the error
   * into the region. {@link Thread#holdsLock} is one: a native method of the JVM's that the JIT
   * does not replace with inline code, cheap, and without effects. Safe from any thread.
   *
   * @throws InternalError the fault of an earlier read by this thread, if one is queued
   */
  public static void deliverPending() {
    Thread.holdsLock(MappedReadFault.class);
  }

  /**
   * What a guarded region failed with when {@code held}, a fault {@link #deliverPending} threw at
   * its end, surfaced after the region's code threw {@code thrown} (over the garbage the faulted
   * read gave, say): the fault, which explains that throw, the throw suppressed on it; unless the
   * throw is the JVM failing ({@link JvmFailure}), which stays what it is, the fault suppressed on
   * it. With no throw, or the fault itself thrown, the fault.
   */
  public static Throwable atFault(@Nullable Throwable thrown, Throwable held) {
    if (thrown == null || thrown == held) {
      return held;
    }
    if (JvmFailure.isFailing(thrown)) {
      thrown.addSuppressed(held);
      return thrown;
    }
    held.addSuppressed(thrown);
    return held;
  }

  /**
   * What a guarded region that threw {@code thrown} ends with: {@code heldFaults} (this class's
   * {@link #deliverPending}, or a test's stand-in) is run last in the region even so, since the
   * throw may be over the garbage a faulted read gave with the fault still held back; a fault it
   * throws is merged with {@code thrown} as {@link #atFault} says, else {@code thrown} stands.
   */
  public static Throwable afterThrow(Throwable thrown, Runnable heldFaults) {
    try {
      heldFaults.run();
      return thrown;
    } catch (Throwable held) {
      return atFault(thrown, held);
    }
  }

  /** Whether {@code e}'s message has HotSpot's words; words that cannot be read are not them. */
  private static boolean saysHotspotWords(Throwable e) {
    String message = read(e::getMessage);
    return message != null && message.contains(HOTSPOT_WORDS);
  }

  /** Whether {@code e}'s first frame is in one of the {@link #NATIVE_MEMORY_READERS}. */
  private static boolean thrownReadingNativeMemory(Throwable e) {
    StackTraceElement[] frames = read(e::getStackTrace);
    if (frames == null || frames.length == 0 || frames[0] == null) {
      return false;
    }
    String where = frames[0].getClassName();
    return NATIVE_MEMORY_READERS.stream().anyMatch(where::startsWith);
  }

  /**
   * A part of a throwable, as its own code gives it: null where that code throws, other than the
   * JVM failing, which passes (see {@link #among}).
   */
  private static <T> @Nullable T read(Supplier<@Nullable T> part) {
    try {
      return part.get();
    } catch (RuntimeException | Error unsaid) {
      if (unsaid instanceof VirtualMachineError && !(unsaid instanceof StackOverflowError)) {
        throw unsaid;
      }
      return null;
    }
  }
}
