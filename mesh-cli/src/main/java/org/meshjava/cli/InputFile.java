package org.meshjava.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A file a command reads, as its command line names it: a file, or {@code -} for standard input, as
 * Unix tools take it ({@code cat receipts.hex | mesh verify -}). A file whose name is {@code -} is
 * still reached as {@code ./-}.
 */
sealed interface InputFile {
  /** What {@code -} stands for. */
  String STDIN = "-";

  /**
   * Where a command says it is waiting to open a file (a FIFO no program writes to yet), bound by
   * {@link Mesh#run} for the command it runs: its error stream, the line led by its name.
   */
  ScopedValue<Consumer<String>> WAITING = ScopedValue.newInstance();

  /**
   * The standard input of the run of {@link Mesh#run} a command runs in, bound by it: a command
   * that reads standard input of itself, not through an argument named {@code -}, reads this, not
   * the process's ({@code System.in}), so that a caller of {@code Mesh.run} that gives its own
   * stream is the one read.
   */
  ScopedValue<StandardInput> STANDARD_INPUT = ScopedValue.newInstance();

  /** How long opening a file that is not a regular one may take before the command says so. */
  Duration WAIT_BEFORE_SAYING = Duration.ofSeconds(2);

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
    /**
     * Opens the file. A FIFO ({@code mkfifo}, or a shell's {@code <(…)}) opens only once a program
     * opens it to write, as for any Unix tool reading it; a command waiting for that writer says so
     * after {@link #WAIT_BEFORE_SAYING} (once, on {@link #WAITING}) and waits on, rather than hang
     * silent.
     */
    @Override
    public InputStream open() throws IOException {
      if (Files.isRegularFile(path) || !Files.exists(path)) {
        return Files.newInputStream(path);
      }
      CompletableFuture<InputStream> opened = new CompletableFuture<>();
      // The open blocks in the kernel; a thread of its own lets this one speak meanwhile. A
      // daemon, so that a command ended (Ctrl-C) while it waits is not kept alive by it.
      Thread.ofPlatform()
          .daemon()
          .name("open " + path)
          .start(
              () -> {
                try {
                  opened.complete(Files.newInputStream(path));
                } catch (IOException | RuntimeException e) {
                  opened.completeExceptionally(e);
                }
              });
      try {
        try {
          return opened.get(WAIT_BEFORE_SAYING.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          WAITING
              .orElse(said -> {})
              .accept(
                  "waiting for a program to open "
                      + path
                      + " to write (it is not a regular file; a FIFO opens once written to);"
                      + " Ctrl-C stops");
          return opened.get();
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw new IOException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while opening " + path);
      }
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

    /**
     * The process's standard input, or, where the process was started with it closed ({@code mesh
     * verify - <&-}), a stream whose every read fails saying so. With descriptor 0 closed, the
     * first file the JVM opens takes that number: on Linux, the JDK's own module image ({@code
     * lib/modules}), which {@code System.in} then reads. {@code mesh verify -} called that image
     * "not text (binary data, or not UTF-8)", a refusal about a file the user never named.
     */
    static InputStream ofProcess() {
      if (!startedClosed(Path.of("/proc/self/fd/0"), Path.of(System.getProperty("java.home")))) {
        return System.in;
      }
      return new InputStream() {
        @Override
        public int read() throws IOException {
          throw closed();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          throw closed();
        }

        private IOException closed() {
          return new IOException(
              "it was closed when mesh started; pipe the input in, or name a file");
        }
      };
    }

    /**
     * Whether descriptor 0, read through {@code fd0} (Linux's {@code /proc/self/fd/0}), is a file
     * of the JDK at {@code javaHome}: what the JVM opened into the number a closed standard input
     * left free. False where {@code fd0} cannot be read (not Linux): no guess is made there.
     */
    static boolean startedClosed(Path fd0, Path javaHome) {
      try {
        return Files.readSymbolicLink(fd0).startsWith(javaHome.toRealPath());
      } catch (IOException | UnsupportedOperationException | SecurityException e) {
        return false;
      }
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
