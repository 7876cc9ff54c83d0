package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * A file mapped into memory (a Jlama model's weights, a journal's snapshot) that something cuts
 * short while mesh reads it ({@code cp} over it, a download into it) makes the JVM throw an {@link
 * InternalError} for the fault: the file changed, which is not a bug in mesh, so the line says what
 * happened and what to do, and the exit status is 74 ({@code EX_IOERR}), not 70.
 */
class MappedFileCutShortTest {
  @TempDir Path tmp;

  /** The JVM's own error for a read past the end of a mapped file that was cut short. */
  private InternalError readPastACutShortMapping() throws Exception {
    Path file = tmp.resolve("weights.bin");
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

  /**
   * Regression: the fault was said as "internal error (a bug in mesh; please report it ...)" and
   * exit 70, though nothing in mesh was wrong and the file only needs to be whole again.
   */
  @Test
  void aMappedFileCutShortAsTheStewardStarts_isSaidAsTheFileChanging_exit74() throws Exception {
    InternalError fault = readPastACutShortMapping();
    Run r =
        ScopedValue.where(
                ServeCommand.STEWARD_STARTING,
                () -> {
                  // As Jlama's forward pass hands it over from its worker threads: wrapped.
                  throw new InternalError(fault.toString(), fault);
                })
            .call(() -> CliErrorsTest.serveOnAFreePort(tmp.resolve("j.journal")));

    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_FILE_CHANGED);
    assertThat(r.err())
        .contains("mesh serve: a file read through memory mapping was cut short")
        .contains("not a bug in mesh")
        .contains("rename it over the old")
        .doesNotContain("internal error");
    assertThat(r.err().lines()).filteredOn(l -> l.startsWith("mesh serve:")).hasSize(1);
  }
}
