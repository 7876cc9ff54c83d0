package org.meshjava.cli;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.conformance.pack.PackReport;
import org.meshjava.conformance.pack.PackRunner;
import org.meshjava.conformance.pack.SubjectException;
import org.meshjava.conformance.pack.SubjectProcess;
import org.meshjava.conformance.pack.internal.MeshJavaPackSubject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mesh conformance run|subject}: run the conformance pack ({@code conformance/v1/cases})
 * against any implementation that speaks the JSON-lines subject protocol of {@code
 * conformance/README.md}, or serve as mesh-java's own subject for such a run.
 */
@Command(
    name = "conformance",
    description = "Run the mesh/1 conformance pack against a subject, or be mesh-java's subject.",
    subcommands = {ConformanceCommand.Run.class, ConformanceCommand.Subject.class})
final class ConformanceCommand extends CommandGroup {
  /** {@code mesh conformance run --subject CMD}. */
  @Command(
      name = "run",
      description = {
        "Run the pack against a subject; print failures, skips and a summary line per group.",
        "Exit 0: all passed; 1: a case failed, or no run (no pack; a subject that exited or said"
            + " nothing before its first answer, reported once with its stderr); 2: none failed,"
            + " some skipped."
      })
  static final class Run extends MeshCommand implements Callable<Integer> {
    @Option(
        names = "--subject",
        required = true,
        paramLabel = "CMD",
        description =
            "The subject's command line, run by the shell from the current folder; e.g."
                + " \"./mesh conformance subject\" in a mesh-java checkout, whose launcher is not"
                + " on PATH.")
    String subject;

    @Option(
        names = "--pack",
        defaultValue = "conformance/v1/cases",
        paramLabel = "DIR",
        description = "The pack directory (default ${DEFAULT-VALUE}).")
    Path pack;

    @Option(
        names = "--timeout",
        defaultValue = "60",
        paramLabel = "SECONDS",
        description = "How long to wait for one answer, 1 to 86400 (default ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /** The longest --timeout: a day per answer is already no timeout at all. */
    private static final long MAX_TIMEOUT_SECONDS = 86_400;

    @Option(names = "--verbose", description = "Print every case, passed ones too.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
      if (subject.isBlank()) {
        throw new CliException("--subject is empty; name the subject's command line");
      }
      if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
        throw new CliException(
            "--timeout must be 1 to " + MAX_TIMEOUT_SECONDS + " seconds, not " + timeoutSeconds);
      }
      if (!Files.isDirectory(pack)) {
        // The default is relative to where the command runs, which is often not a checkout.
        throw new CliException(
            "no conformance pack at "
                + pack.toAbsolutePath()
                + "; pass --pack DIR, the cases folder (conformance/v1/cases in a mesh-java"
                + " checkout)");
      }
      List<PackGroup> groups = PackGroup.readAll(pack);
      Duration timeout = Duration.ofSeconds(timeoutSeconds);
      PackReport report;
      try (SubjectProcess process = SubjectProcess.start(subject, timeout)) {
        Printer printer = new Printer(process);
        try {
          report = PackRunner.run(groups, process, printer);
        } catch (SubjectException e) {
          // Once, with the subject's own words, rather than every case counted as skipped.
          err().println(spec.qualifiedName() + ": --subject " + subject + ": " + e.getMessage());
          printStderr(e.stderrLines());
          return 1;
        }
        if (printer.stoppedAt != null) {
          // The skips that follow are documented; why they happened is said once, here.
          OptionalInt status = process.exitStatus(Duration.ofSeconds(5));
          err()
              .println(
                  spec.qualifiedName()
                      + ": --subject "
                      + subject
                      + ": stopped answering at case "
                      + printer.stoppedAt
                      + (process.timedOut()
                          ? ": it gave no answer within "
                              + timeoutSeconds
                              + " s, and was ended, with what it had started"
                          : status.isPresent()
                              ? ": it exited with status " + status.getAsInt()
                              : ": it runs on, but closed its output")
                      + "; that case and every later one are skipped");
          printStderr(process.stderrLines());
        }
      }
      out().println("subject: " + report.subjectName());
      report.summary().forEach(out()::println);
      out().flush();
      return PackRunner.exitCode(report);
    }

    /** The end of the subject's stderr, indented under the line that names what happened. */
    private void printStderr(List<String> stderr) {
      err().println(stderr.isEmpty() ? "  (it wrote nothing to stderr)" : "  its stderr:");
      stderr.forEach(l -> err().println("    " + l));
    }

    /**
     * Prints each outcome worth reading (failures and skips, every one with --verbose), and notes
     * the first case judged after the subject stopped answering.
     */
    private final class Printer implements Consumer<PackReport.CaseResult> {
      private final SubjectProcess process;
      private @Nullable String stoppedAt;

      Printer(SubjectProcess process) {
        this.process = process;
      }

      @Override
      public void accept(PackReport.CaseResult r) {
        if (stoppedAt == null && process.gone()) {
          stoppedAt = r.id();
        }
        if (verbose || r.outcome() != PackReport.Outcome.PASS) {
          out().println(r);
        }
      }
    }
  }

  /** {@code mesh conformance subject}: mesh-java answering the protocol on stdin and stdout. */
  @Command(
      name = "subject",
      description =
          "Answer conformance requests on standard input, one JSON line each, as mesh-java.")
  static final class Subject extends MeshCommand implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      // The run's streams, not the process's: Mesh.run may be given others.
      try (InputStream in = InputFile.STANDARD_INPUT.get().named().open()) {
        new MeshJavaPackSubject().serve(in, out());
      }
      return 0;
    }
  }
}
