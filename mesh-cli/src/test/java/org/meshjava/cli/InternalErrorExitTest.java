package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import org.junit.jupiter.api.Test;

/**
 * A failure that is not one of a command's own (picocli's help drawing, a caller of {@link
 * Mesh#run} passing a null argument, an {@link Error}) is a bug in mesh, said as one line and exit
 * {@link Mesh#EXIT_INTERNAL}, as a command's unchecked exception is: never picocli's stack trace on
 * stderr and exit 1, which reads like a refusal of the input.
 */
class InternalErrorExitTest {
  /** The run's exit code and what it said on stderr. */
  private record Ran(int code, String err) {}

  private static Ran run(Writer out, String... args) {
    StringWriter err = new StringWriter();
    int code =
        Mesh.run(
            new ByteArrayInputStream(new byte[0]),
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            args);
    return new Ran(code, err.toString());
  }

  private static void assertOneInternalErrorLine(Ran r, String naming) {
    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_INTERNAL);
    assertThat(r.err().lines().toList()).as("stderr").hasSize(1);
    assertThat(r.err())
        .startsWith("mesh")
        .contains("internal error (a bug in mesh; please report it with this line)")
        .contains(naming)
        .doesNotContain("\tat ");
  }

  /** An output that fails unchecked at its first write, as a broken writer of a caller may. */
  private static final class Throwing extends Writer {
    private final Runnable fail;

    Throwing(Runnable fail) {
      this.fail = fail;
    }

    Throwing() {
      this(
          () -> {
            throw new IllegalStateException("the writer broke");
          });
    }

    @Override
    public void write(char[] buf, int off, int len) {
      fail.run();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  @Test
  void aRuntimeExceptionWhileDrawingHelp_isOneInternalErrorLine() {
    assertOneInternalErrorLine(run(new Throwing(), "--help"), "the writer broke");
    assertOneInternalErrorLine(
        run(new Throwing(), "key", "generate", "--help"), "the writer broke");
  }

  @Test
  void aRuntimeExceptionWhileSayingTheVersion_isOneInternalErrorLine() {
    assertOneInternalErrorLine(run(new Throwing(), "--version"), "the writer broke");
  }

  @Test
  void aNullArgument_isOneInternalErrorLine() {
    assertOneInternalErrorLine(
        run(new StringWriter(), "key", null), "NullPointerException: argument 2 is null");
    assertOneInternalErrorLine(
        run(new StringWriter(), (String[]) null), "NullPointerException: no argument array");
    // Where the bug is: mesh's own first frame, the one that threw, not a caller's or the JDK's.
    assertThat(run(new StringWriter(), "key", null).err())
        .contains("org.meshjava.cli.Mesh.run(Mesh.java:");
  }

  @Test
  void anErrorWhileRunning_isOneInternalErrorLine() {
    // An Error (here a StackOverflowError) is not an Exception, which is all picocli catches.
    Writer overflowing =
        new Throwing(
            () -> {
              throw new StackOverflowError("deep");
            });
    Ran r = run(overflowing, "--help");
    assertOneInternalErrorLine(r, "java.lang.StackOverflowError: deep");
    // The Error itself is named, not picocli's wrapper around it.
    assertThat(r.err()).doesNotContain("ExecutionException");
  }
}
