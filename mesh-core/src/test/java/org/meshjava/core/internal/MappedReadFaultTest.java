package org.meshjava.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The JVM's fault for a read of a mapped file past the end it has now is told from any other {@link
 * InternalError}: by HotSpot's words, or by its being thrown from the JDK's own read of the mapped
 * buffer, so that a JVM wording it otherwise is still understood.
 */
class MappedReadFaultTest {
  /**
   * Regression: the fault was known by HotSpot's words alone (mesh's exit 74), so the same fault
   * worded otherwise was taken for a bug. Here as the interpreter reports the read: from the
   * buffer's own get (compiled code may report it in the caller, where the words are left).
   */
  @Test
  void theFaultInOtherWords_isKnownByWhereItWasThrown() {
    InternalError reworded = new InternalError("SIGBUS at a mapped address");
    reworded.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement("java.nio.DirectByteBuffer", "get", "DirectByteBuffer.java", 340),
          new StackTraceElement("org.meshjava.jcp.PackedSpent", "until", "PackedSpent.java", 177)
        });
    assertThat(MappedReadFault.in(reworded)).isTrue();
  }

  @Test
  void anInternalErrorOfOurOwn_orAnotherError_isNot() {
    assertThat(MappedReadFault.in(new InternalError("simulated"))).isFalse();
    assertThat(MappedReadFault.in(new IllegalStateException("unsafe memory access operation")))
        .isFalse();
  }
}
