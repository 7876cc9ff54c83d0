package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MeshCommandTest {
  record Run(int code, String out, String err) {}

  static Run mesh(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Mesh.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  /**
   * {@code mesh demo} with no arguments, run once in this JVM and its outcome kept for the classes
   * that check it ({@link #demo_servesVerifiesAndExitsZero}, {@link AdmissionHintTest}, {@link
   * CliFuzzTest}): the whole demo, a model load and several serves, was a few seconds of the
   * default suite for each of them, for the same command line and the same outcome. Test classes in
   * one JVM run one at a time, so one run is shared, not raced.
   */
  static synchronized Demo demo() {
    if (demo == null) {
      try {
        List<String> before = CliFuzzTest.names(Path.of(""));
        Run r = mesh("demo");
        demo = new Demo(r, before, CliFuzzTest.names(Path.of("")));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return demo;
  }

  private static Demo demo;

  /**
   * The outcome of {@link #demo()}, with the names in the working folder (the module's) before and
   * after it ran.
   */
  record Demo(Run run, List<String> before, List<String> after) {}

  /** Runs {@code mesh} in this JVM with {@code stdin} as its standard input. */
  static Run meshWithInput(byte[] stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Mesh.run(
            new java.io.ByteArrayInputStream(stdin),
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void demo_servesVerifiesAndExitsZero() {
    Run r = demo().run();
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("\"energy_provenance\" : \"Estimator\"")
        .contains("\"uj_per_decision\"")
        .contains("NO_ADMISSIBLE_BACKEND")
        .contains("\"grant_id\"")
        .contains("== a typed decision on a real model: MiniLM")
        .contains("\"chosen\" : \"minilm\"")
        .contains("\"precision\" : \"fp32\"")
        .contains("\"weights_digest\"")
        .contains("chain verified: 5 receipts from genesis")
        .contains("journal verified: 8 records in one chain")
        .contains("replay of receipt 0: Verified");
    // The demo says its reference engines' output is placeholder, not a model's work.
    assertThat(r.out()).contains("deterministic placeholders");
    // The first typed decision sends its questions and prints an answer per question, with a
    // probability per option; MiniLM is weighed on price, not refused for want of questions.
    String decision = section(r.out(), "== a typed decision: 2 questions over 6 options");
    assertThat(decision)
        .contains("\"question\" : \"Is this invoice a duplicate?\"")
        .contains("\"question\" : \"Which team owns it?\"")
        .contains("\"procurement\" : 0.")
        .contains("\"questions_answered\" : 2")
        .contains("\"options_scored\" : 6")
        .doesNotContain("answers only typed questions");
  }

  /** The demo's output from the line starting {@code title} to the next blank line. */
  private static String section(String out, String title) {
    int from = out.indexOf(title);
    assertThat(from).as("section " + title).isNotNegative();
    int to = out.indexOf("\n\n", from);
    return out.substring(from, to < 0 ? out.length() : to);
  }

  @Test
  void help_listsTheCommands() {
    Run r = mesh("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("demo", "serve", "verify", "journal", "key", "grant", "conformance");
    for (String[] sub :
        new String[][] {
          {"serve"},
          {"journal", "inspect"},
          {"journal", "verify"},
          {"key", "generate"},
          {"grant", "issue"},
          {"grant", "delegate"},
          {"grant", "shard"},
          {"grant", "present"},
          {"conformance", "run"},
          {"conformance", "subject"}
        }) {
      String[] args = java.util.Arrays.copyOf(sub, sub.length + 1);
      args[sub.length] = "--help";
      Run h = mesh(args);
      assertThat(h.code()).as(String.join(" ", sub)).isZero();
      assertThat(h.out()).contains("Usage: mesh " + String.join(" ", sub));
    }
  }

  /**
   * Regression: {@code mesh --help} listed only the Java commands, so {@code test}, {@code format}
   * and {@code bench}, which the README shows and the launcher runs, were nowhere in the help.
   */
  @Test
  void help_namesTheLaunchersOwnCommandsToo() {
    Run r = mesh("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("./mesh launcher")
        .contains("  test [MAVEN-ARGS...]")
        .contains("  format ")
        .contains("  bench [JMH-ARGS...]");
  }

  @Test
  void verify_acceptsThePublishedReferenceEnvelope() {
    Run r = mesh("verify", "--from-genesis", published("reference/envelope.hex").toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("verified 1 receipt,");
  }

  @Test
  void verify_exitsNonZeroNamingTheFirstBadLink(@TempDir Path tmp) throws Exception {
    String good = Files.readString(published("reference/envelope.hex")).strip();
    Path file = tmp.resolve("chain.hex");
    // The same genesis receipt twice: the second does not follow the first.
    Files.write(file, List.of(good, good));
    Run r = mesh("verify", file.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("envelope 1").contains("BROKEN_CHAIN");
  }

  @Test
  void verify_refusesNonHexInput(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("bad.hex");
    Files.writeString(file, "not hex at all\n");
    Run r = mesh("verify", file.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("is not lowercase hex: 'n' at index 0");
  }

  static Path published(String name) {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path c = p.resolve("conformance/v1").resolve(name);
      if (Files.exists(c)) {
        return c;
      }
    }
    throw new IllegalStateException("conformance/v1 not found");
  }
}
