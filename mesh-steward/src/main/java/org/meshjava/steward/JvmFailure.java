package org.meshjava.steward;

/**
 * The one rule for an {@link Error} met while asking an engine something outside its work (its
 * weights and recipe, in a serve or a replay): a {@link VirtualMachineError} other than a {@link
 * StackOverflowError} (the heap gone, the JVM broken) is the process failing, not the backend, so
 * it passes as it is, never turned into a refusal that blames the backend or the request. A stack
 * overflow is the engine's own recursion, unwound by the time it is caught, and is refused as any
 * other throw of the engine's code is. The router applies the same rule to what it asks while
 * judging a backend.
 */
final class JvmFailure {
  private JvmFailure() {}

  /** Rethrows {@code e} if it is the JVM failing; otherwise returns, and the caller refuses it. */
  static void passIfFailing(Throwable e) {
    if (e instanceof VirtualMachineError vm && !(e instanceof StackOverflowError)) {
      throw vm;
    }
  }
}
