package org.meshjava.core.internal;

/**
 * The one rule for an {@link Error} met while asking a backend or a counter something (the router
 * judging a backend, the steward asking an engine outside its work, a meter reading a counter for
 * another meter): a {@link VirtualMachineError} other than a {@link StackOverflowError} (the heap
 * gone, the JVM broken) is the process failing, not what was asked, so it passes as it is, never
 * turned into a refusal or a failed read that blames the backend, the counter or the request. A
 * stack overflow is the asked code's own recursion, unwound by the time it is caught, and is that
 * code failing as any other throw of it is. So is the JVM's fault for a read of a mapped file past
 * the end it has now ({@link MappedReadFault}): an {@link InternalError} too, but the file the
 * asked code mapped (an engine's weights, say) was cut short on disk, which is that code's input
 * failing, and the JVM goes on as before. Kept in one place so the router, the meters (a counter
 * set aside for its Errors), the steward (its engine calls and its listener guard) and the engines
 * that follow it cannot drift apart. Stateless.
 */
public final class JvmFailure {
  private JvmFailure() {}

  /** Whether {@code e} is the JVM failing rather than the code that threw it. */
  public static boolean isFailing(Throwable e) {
    return e instanceof VirtualMachineError
        && !(e instanceof StackOverflowError)
        && !(e instanceof InternalError && MappedReadFault.in(e));
  }

  /** Rethrows {@code e} if it is the JVM failing; otherwise returns, and the caller refuses it. */
  public static void passIfFailing(Throwable e) {
    if (isFailing(e)) {
      throw (VirtualMachineError) e;
    }
  }
}
