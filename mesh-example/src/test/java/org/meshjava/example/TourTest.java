package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the README's "everything else a steward does" as {@link Tour} holds it, in a JVM of its own
 * and a fresh working directory, and holds the README to that source.
 */
class TourTest {
  private static final Path TOUR = Path.of("src/main/java/org/meshjava/example/Tour.java");
  private static final Path README = Path.of("..", "README.md");

  @Test
  void tour_servesGrantsDecidesChainsAndReplays_andARestartRefusesTheFreshChainItAsksFor(
      @TempDir Path dir) throws Exception {
    ExampleJvm.Ran first = ExampleJvm.run(Tour.class, dir);

    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out())
        .contains("chain 3, grant true, answers 2, verdict Verified[]")
        .doesNotContain("Diverged", "NotReplayable");
    assertThat(first.err()).doesNotContain("WARNING");
    assertThat(dir.resolve("steward.journal")).exists();
    // The snippet's "first start only": its journal now records receipts, so the same chain head
    // given again is refused, and the message says what to do.
    ExampleJvm.Ran again = ExampleJvm.run(Tour.class, dir);
    assertThat(again.code()).isNotZero();
    assertThat(again.err()).contains("conflicts with journal", "give no chain head");
  }

  @Test
  void readme_showsTheTourAsItIs() throws Exception {
    String unindented = region().replaceAll("(?m)^    ", "");
    assertThat(Files.readString(README, StandardCharsets.UTF_8))
        .contains("```java\n" + unindented + "```\n");
  }

  @Test
  void tour_closesItsSteward_evenWhenAStepThrows() throws Exception {
    // Copied into an application, a tour that closed its steward with a statement after the serves
    // left the journal locked until the JVM exited when one of them threw.
    assertThat(region()).contains("    try (Steward steward =\n").doesNotContain("steward.close()");
  }

  /** The part of {@link Tour} the README shows, as the source indents it. */
  private static String region() throws java.io.IOException {
    String tour = Files.readString(TOUR, StandardCharsets.UTF_8);
    String begin = "    // README:begin\n";
    return tour.substring(
        tour.indexOf(begin) + begin.length(), tour.indexOf("    // README:end\n"));
  }
}
