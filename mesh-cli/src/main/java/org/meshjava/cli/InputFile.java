package org.meshjava.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file a command reads, as its command line names it: a file, or {@code -} for standard input, as
 * Unix tools take it ({@code cat receipts.hex | mesh verify -}). A file whose name is {@code -} is
 * still reached as {@code ./-}.
 */
sealed interface InputFile {
  /** What {@code -} stands for. */
  String STDIN = "-";

  /** Opens the bytes to read; the caller closes the stream. */
  InputStream open() throws IOException, CliException;

  /** Whether this names a folder, which cannot be read as a file. */
  boolean isFolder();

  /** What the command line names: standard input for {@code -}, else the file. */
  static InputFile of(String text, StandardInput stdin) {
    return text.equals(STDIN) ? stdin.named() : new Named(Path.of(text));
  }

  /** A file named on the command line. */
  record Named(Path path) implements InputFile {
    @Override
    public InputStream open() throws IOException {
      return Files.newInputStream(path);
    }

    @Override
    public boolean isFolder() {
      return Files.isDirectory(path);
    }

    @Override
    public String toString() {
      return path.toString();
    }
  }

  /**
   * Standard input, given to one run of {@code mesh}: it can be read once, so a command line that
   * names {@code -} for two inputs is refused before either reads it (rather than one reading what
   * was meant for the other, or the second reading nothing). Not thread-safe; a command reads its
   * inputs in turn.
   */
  final class StandardInput implements InputFile {
    private final InputStream in;
    private int names;
    private boolean read;

    StandardInput(InputStream in) {
      this.in = in;
    }

    /** Counts one more input of the command line naming {@code -}; returns this. */
    StandardInput named() {
      names++;
      return this;
    }

    /**
     * Standard input, left open when the stream is closed (it is the process's).
     *
     * @throws CliException if the command line names it for more than one input, or it was read
     *     already
     */
    @Override
    public InputStream open() throws CliException {
      if (names > 1 || read) {
        throw new CliException(
            "standard input is named by more than one input; name '-' for one input only, and a"
                + " file for the others");
      }
      read = true;
      return new java.io.FilterInputStream(in) {
        @Override
        public void close() {
          // Not ours to close.
        }
      };
    }

    @Override
    public boolean isFolder() {
      return false;
    }

    @Override
    public String toString() {
      return "standard input";
    }
  }
}
