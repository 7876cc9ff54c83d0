package org.meshjava.conformance.pack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * Runs the conformance pack against a subject over the JSON-lines protocol of {@code
 * conformance/README.md}. Every check is the subject's answer; the runner computes nothing of
 * mesh/1 itself, so it holds any implementation, in any language, to the same cases.
 *
 * <p>A case passes only on an answer: the expected result ({@code valid} or {@code invalid}), for
 * an invalid case exactly the expected reason, and every expected output field with an equal value
 * (numbers compared by value, objects by their fields, arrays in order). No answer, or an answer of
 * {@code unsupported}, is a skip; but a subject gone before it answers the first request (the
 * {@code hello}) is not a run at all, and is refused as a {@link SubjectException}. Stateless.
 */
public final class PackRunner {
  /** How long the runner waits for one answer by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  /** How long a subject that stopped answering is given to exit, so its status can be told. */
  private static final Duration EXIT_WAIT = Duration.ofSeconds(5);

  private PackRunner() {}

  /**
   * Runs every case of {@code groups} against {@code subject}, telling {@code progress} each
   * outcome as it comes.
   *
   * @throws SubjectException if the subject is gone before it answers the first request (the {@code
   *     hello}): no case is judged, since none was put to a running subject
   */
  public static PackReport run(
      List<PackGroup> groups, SubjectProcess subject, Consumer<PackReport.CaseResult> progress)
      throws SubjectException {
    String name = "(unnamed)";
    Optional<JsonNode> hello =
        subject.ask(request("hello", "hello", JsonNodeFactory.instance.objectNode()));
    if (hello.isEmpty() && subject.gone()) {
      OptionalInt status = subject.exitStatus(EXIT_WAIT);
      throw status.isPresent()
          ? SubjectException.exited(status.getAsInt(), subject.stderrTail())
          : SubjectException.noAnswer(subject.stderrTail());
    }
    if (hello.isPresent() && "valid".equals(hello.get().path("result").asText())) {
      name = hello.get().path("output").path("name").asText("(unnamed)");
    }
    List<PackReport.CaseResult> results = new ArrayList<>();
    for (PackGroup g : groups) {
      for (PackCase c : g.cases()) {
        Optional<JsonNode> answer = subject.ask(request(c.id(), c.op(), c.input()));
        PackReport.CaseResult r = judge(g.name(), c, answer, subject.gone());
        results.add(r);
        progress.accept(r);
      }
    }
    return new PackReport(name, results);
  }

  /**
   * Reads the pack in {@code packDir} and runs it against the subject {@code command} (a shell
   * command line).
   *
   * @throws IOException if the pack cannot be read or the subject cannot be started; {@link
   *     SubjectException} if it is gone before its first answer
   */
  public static PackReport run(
      Path packDir, String command, Duration timeout, Consumer<PackReport.CaseResult> progress)
      throws IOException {
    List<PackGroup> groups = PackGroup.readAll(packDir);
    try (SubjectProcess subject = SubjectProcess.start(command, timeout)) {
      return run(groups, subject, progress);
    }
  }

  private static ObjectNode request(String id, String op, JsonNode input) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("id", id);
    o.put("op", op);
    o.set("input", input);
    return o;
  }

  /** The longest part of an answer a failure quotes: enough to recognise it, not a screenful. */
  private static final int QUOTED_CHARS = 80;

  /** What the subject wrote, for a failure's detail: the line of a non-object answer, cut short. */
  private static String quoted(JsonNode answer) {
    String line = answer.isTextual() ? answer.asText() : answer.toString();
    return line.length() <= QUOTED_CHARS
        ? "'" + line + "'"
        : "'" + line.substring(0, QUOTED_CHARS) + "…' (" + line.length() + " characters)";
  }

  /** Judges one answer against its case. */
  static PackReport.CaseResult judge(
      String group, PackCase c, Optional<JsonNode> answer, boolean subjectGone) {
    if (answer.isEmpty()) {
      return result(
          group,
          c,
          PackReport.Outcome.SKIP,
          subjectGone ? "no answer: the subject exited or timed out" : "no answer");
    }
    JsonNode a = answer.get();
    if (!a.isObject()) {
      return result(
          group, c, PackReport.Outcome.FAIL, "the answer is not a JSON object: " + quoted(a));
    }
    if (!c.id().equals(a.path("id").asText())) {
      return result(
          group,
          c,
          PackReport.Outcome.FAIL,
          "the answer names case '" + a.path("id").asText() + "'");
    }
    String said = a.path("result").asText();
    if (said.equals("unsupported")) {
      return result(group, c, PackReport.Outcome.SKIP, "the subject does not support " + c.op());
    }
    if (!said.equals(c.result().wire())) {
      String why = said.equals("invalid") ? " (" + a.path("reason").asText() + ")" : "";
      return result(
          group,
          c,
          PackReport.Outcome.FAIL,
          "expected "
              + c.result().wire()
              + c.reason().map(r -> " (" + r + ")").orElse("")
              + " but the subject said "
              + (said.isEmpty() ? "nothing readable" : said)
              + why);
    }
    if (c.reason().isPresent() && !c.reason().get().equals(a.path("reason").asText())) {
      return result(
          group,
          c,
          PackReport.Outcome.FAIL,
          "expected reason "
              + c.reason().get()
              + " but the subject gave "
              + a.path("reason").asText("(none)"));
    }
    JsonNode output = a.path("output");
    Iterator<Map.Entry<String, JsonNode>> fields = c.expected().properties().iterator();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      JsonNode got = output.get(f.getKey());
      if (got == null) {
        return result(group, c, PackReport.Outcome.FAIL, "the output lacks '" + f.getKey() + "'");
      }
      if (!same(f.getValue(), got)) {
        return result(
            group,
            c,
            PackReport.Outcome.FAIL,
            "'"
                + f.getKey()
                + "': expected "
                + abbreviate(f.getValue())
                + " but got "
                + abbreviate(got));
      }
    }
    return result(group, c, PackReport.Outcome.PASS, "");
  }

  private static PackReport.CaseResult result(
      String group, PackCase c, PackReport.Outcome outcome, String detail) {
    return new PackReport.CaseResult(group, c.id(), outcome, detail);
  }

  /** JSON equality with numbers compared by value, whatever width a parser chose for them. */
  static boolean same(JsonNode expected, JsonNode got) {
    if (expected.isNumber() && got.isNumber()) {
      return expected.decimalValue().compareTo(got.decimalValue()) == 0;
    }
    if (expected.isObject() && got.isObject()) {
      if (expected.size() != got.size()) {
        return false;
      }
      for (var e : expected.properties()) {
        JsonNode g = got.get(e.getKey());
        if (g == null || !same(e.getValue(), g)) {
          return false;
        }
      }
      return true;
    }
    if (expected.isArray() && got.isArray()) {
      if (expected.size() != got.size()) {
        return false;
      }
      for (int i = 0; i < expected.size(); i++) {
        if (!same(expected.get(i), got.get(i))) {
          return false;
        }
      }
      return true;
    }
    return expected.equals(got);
  }

  private static String abbreviate(JsonNode v) {
    String s = v.toString();
    return s.length() <= 160 ? s : s.substring(0, 157) + "...";
  }

  /**
   * Entry point: {@code PackRunner --subject CMD [--pack DIR] [--timeout SECONDS] [--verbose]}.
   * Prints every failed and skipped case (every case with {@code --verbose}), then one summary line
   * per group. Exits 0 when every case passed, 1 when one failed or the subject was gone before its
   * first answer, 2 when none failed but some were skipped, 64 on a usage error.
   */
  public static void main(String[] args) throws IOException {
    String subject = null;
    Path pack = Path.of("conformance/v1/cases");
    Duration timeout = DEFAULT_TIMEOUT;
    boolean verbose = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--subject" -> subject = args[++i];
        case "--pack" -> pack = Path.of(args[++i]);
        case "--timeout" -> timeout = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--verbose" -> verbose = true;
        default -> {
          System.err.println(
              "usage: PackRunner --subject CMD [--pack DIR] [--timeout S] [--verbose]");
          System.exit(64);
        }
      }
    }
    if (subject == null) {
      System.err.println("usage: PackRunner --subject CMD [--pack DIR] [--timeout S] [--verbose]");
      System.exit(64);
    }
    PackReport report;
    try {
      report =
          run(pack, java.util.Objects.requireNonNull(subject), timeout, print(System.out, verbose));
    } catch (SubjectException e) {
      System.err.println("PackRunner: " + e.getMessage());
      e.stderrLines().forEach(l -> System.err.println("  " + l));
      System.exit(1);
      return;
    }
    report.summary().forEach(System.out::println);
    System.exit(exitCode(report));
  }

  /** Prints each outcome worth reading: failures and skips, or everything when verbose. */
  public static Consumer<PackReport.CaseResult> print(PrintStream out, boolean verbose) {
    return r -> {
      if (verbose || r.outcome() != PackReport.Outcome.PASS) {
        out.println(r);
      }
    };
  }

  /** 0 when every case passed, 1 when one failed, 2 when none failed but some were skipped. */
  public static int exitCode(PackReport report) {
    PackReport.Counts t = report.total();
    return t.failed() > 0 ? 1 : t.skipped() > 0 || t.passed() == 0 ? 2 : 0;
  }
}
