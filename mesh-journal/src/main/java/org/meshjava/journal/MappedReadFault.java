package org.meshjava.journal;

/**
 * Tells the JVM's fault for a read of a file mapped into memory past the end it has now (a snapshot
 * read in place, SPEC.md §60.9, or a model's weights, cut short by something rewriting the file in
 * place) from any other {@link InternalError}. The JVM reports that fault (SIGBUS) as an {@code
 * InternalError}, which is the file changing, not the JVM or mesh failing. Stateless, so safe from
 * any thread.
 *
 * <p>Kept as API for embedders that catch the fault around a steward; the rule itself lives in
 * mesh-core ({@code org.meshjava.core.internal.MappedReadFault}), where the engines below this
 * module reach it too, and this class delegates to it.
 */
public final class MappedReadFault {
  private MappedReadFault() {}

  /**
   * Whether {@code e} is, or was caused by, the fault of a read of a mapped file past its end: an
   * {@link InternalError} thrown from the JDK's own read of memory outside the heap, or worded as
   * HotSpot words the fault. One thrown on another thread (Jlama's forward pass) arrives wrapped,
   * so the causes are followed.
   */
  public static boolean in(Throwable e) {
    return org.meshjava.core.internal.MappedReadFault.in(e);
  }

  /**
   * Throws here the fault of a read of a mapped file this thread already did, if the JVM still
   * holds it back: code the JIT compiled may throw that fault only at a later safepoint poll, which
   * can lie after the {@code catch} meant for it. A guard calls this last inside the region it
   * guards, so the fault is caught there. Safe from any thread.
   *
   * @throws InternalError the fault of an earlier read by this thread, if one is queued
   */
  public static void deliverPending() {
    org.meshjava.core.internal.MappedReadFault.deliverPending();
  }
}
