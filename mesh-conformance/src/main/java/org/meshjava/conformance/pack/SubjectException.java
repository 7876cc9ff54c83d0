package org.meshjava.conformance.pack;

import java.io.IOException;
import java.util.List;
import java.util.OptionalInt;

/**
 * A subject that could not be run against the pack: it gave no answer to its first request (the
 * runner's {@code hello}) and is gone. A command that does not exist, or one that fails as it
 * starts, is this, reported once with what it wrote to standard error; counting every case as
 * skipped would bury the shell's "not found" under hundreds of lines that blame the cases.
 */
public final class SubjectException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Why the subject gave no first answer. */
  public enum Reason {
    /** It exited before answering: a command not found, a crash as it started. */
    EXITED,
    /** It still runs but gave no answer: it timed out, or closed its output. */
    NO_ANSWER
  }

  private final Reason reason;
  private final int exitStatus;
  private final String stderr;

  private SubjectException(Reason reason, int exitStatus, String message, String stderr) {
    super(message);
    this.reason = reason;
    this.exitStatus = exitStatus;
    this.stderr = stderr;
  }

  /**
   * The subject exited with {@code status} before its first answer, having written {@code stderr}.
   */
  static SubjectException exited(int status, String stderr) {
    return new SubjectException(
        Reason.EXITED,
        status,
        "the subject exited with status " + status + " before answering its first request",
        stderr);
  }

  /** The subject runs on but gave no first answer, having written {@code stderr}. */
  static SubjectException noAnswer(String stderr) {
    return new SubjectException(
        Reason.NO_ANSWER,
        -1,
        "the subject gave no answer to its first request (it timed out or closed its output)",
        stderr);
  }

  /** Why the subject gave no first answer. */
  public Reason reason() {
    return reason;
  }

  /** The subject's exit status, when it exited ({@link Reason#EXITED}). */
  public OptionalInt exitStatus() {
    return reason == Reason.EXITED ? OptionalInt.of(exitStatus) : OptionalInt.empty();
  }

  /** The last few kilobytes the subject wrote to standard error; empty if it wrote nothing. */
  public String stderr() {
    return stderr;
  }

  /** The last lines of {@link #stderr}, as {@link SubjectProcess#stderrLines} keeps them. */
  public List<String> stderrLines() {
    return SubjectProcess.lastLines(stderr);
  }
}
