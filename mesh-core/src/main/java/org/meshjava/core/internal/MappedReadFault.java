package org.meshjava.core.internal;

import java.util.List;
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
   * Whether {@code e} is, or was caused by, the fault of a read of a mapped file past its end; one
   * thrown on another thread (Jlama's forward pass) arrives wrapped, so the causes are followed.
   */
  public static boolean in(Throwable e) {
    Throwable at = e;
    for (int depth = 0; at != null && depth < 32; depth++, at = at.getCause()) {
      if (at instanceof InternalError && (thrownReadingNativeMemory(at) || saysHotspotWords(at))) {
        return true;
      }
    }
    return false;
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

  /**
   * Whether {@code e}'s message has HotSpot's words. An {@link InternalError} of an engine's own
   * class may build its message in code that throws: asked from every guard that tells the JVM
   * failing from the code asked failing ({@link JvmFailure}), that throw would end the guard
   * instead of its typed refusal, so words that cannot be read are not HotSpot's. Only the JVM
   * failing while building them (other than a stack overflow, the code's own recursion) passes.
   */
  private static boolean saysHotspotWords(Throwable e) {
    String message;
    try {
      message = e.getMessage();
    } catch (RuntimeException | Error unsaid) {
      if (unsaid instanceof VirtualMachineError && !(unsaid instanceof StackOverflowError)) {
        throw unsaid;
      }
      return false;
    }
    return message != null && message.contains(HOTSPOT_WORDS);
  }

  /** Whether {@code e}'s first frame is in one of the {@link #NATIVE_MEMORY_READERS}. */
  private static boolean thrownReadingNativeMemory(Throwable e) {
    StackTraceElement[] frames = e.getStackTrace();
    if (frames.length == 0) {
      return false;
    }
    String where = frames[0].getClassName();
    return NATIVE_MEMORY_READERS.stream().anyMatch(where::startsWith);
  }
}
