package org.meshjava.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.jspecify.annotations.Nullable;

/**
 * The process's standard output, remembering the first write that failed. {@link System#out} and
 * the {@link java.io.PrintWriter} over it swallow write errors, so {@code mesh journal inspect J >
 * report.txt} on a full disk left a cut-off report and exited 0, as did {@code mesh key show >
 * /dev/full}. {@code mesh} asks {@link #failure()} once the command is done and, for a failure
 * other than a reader that went away, says so and exits 1.
 */
final class StandardOutput extends FilterOutputStream {
  private @Nullable IOException failure;

  /** Standard output, unbuffered here (the writer above it buffers). */
  StandardOutput() {
    this(new FileOutputStream(FileDescriptor.out));
  }

  /** Writes to {@code out}, for a test that stands in for the descriptor. */
  StandardOutput(OutputStream out) {
    super(out);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      remember(e);
      throw e;
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void flush() throws IOException {
    try {
      out.flush();
    } catch (IOException e) {
      remember(e);
      throw e;
    }
  }

  private void remember(IOException e) {
    if (failure == null) {
      failure = e;
    }
  }

  /**
   * Why the output is incomplete, as a sentence for {@code mesh:}; null when every write succeeded
   * or when the reader went away ({@code mesh journal inspect J | head}), which, as for any Unix
   * tool, is no error of this command.
   */
  @Nullable String failure() {
    if (failure == null || String.valueOf(failure.getMessage()).contains("Broken pipe")) {
      return null;
    }
    return "cannot write standard output: "
        + failure.getMessage()
        + "; what was printed is incomplete";
  }
}
