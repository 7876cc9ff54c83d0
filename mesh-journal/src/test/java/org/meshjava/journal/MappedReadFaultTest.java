package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM's fault for a read of a mapped file past the end it has now is told from any other {@link
 * InternalError}: by HotSpot's words, or by its being thrown from the JDK's own read of the mapped
 * buffer, so that a JVM wording it otherwise is still understood.
 */
class MappedReadFaultTest {
  @TempDir Path tmp;

  /** The JVM's own error for a read past the end of a mapped file that was cut short. */
  private InternalError readPastACutShortMapping() throws Exception {
    Path file = tmp.resolve("snapshot.bin");
    Files.write(file, new byte[1 << 16]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
      ch.truncate(0);
      try {
        mapped.get(1 << 15);
      } catch (InternalError e) {
        return e;
      }
    }
    throw new AssertionError("reading past the cut did not fault");
  }

  @Test
  void theJvmsFault_alone_orWrapped_isKnown() throws Exception {
    InternalError fault = readPastACutShortMapping();
    assertThat(MappedReadFault.in(fault)).isTrue();
    assertThat(MappedReadFault.in(new RuntimeException(new InternalError(fault.toString(), fault))))
        .isTrue();
  }

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
