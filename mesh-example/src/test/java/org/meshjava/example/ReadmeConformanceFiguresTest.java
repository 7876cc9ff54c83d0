package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The READMEs' figures for the conformance case pack are the pack's own: a user who runs the
 * README's {@code ./mesh conformance run} line compares its total with the comment beside it, and a
 * comment that says 353 where the run prints 357 reads as four cases lost. Found by a first-hour
 * walk through the README.
 */
class ReadmeConformanceFiguresTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern CASE_COUNT = Pattern.compile("\"case_count\" : (\\d+)");

  private static int cases;
  private static int groups;

  @BeforeAll
  static void countThePack() throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(ROOT.resolve("conformance/v1/cases"))) {
      s.filter(p -> p.toString().endsWith(".json")).forEach(files::add);
    }
    for (Path f : files) {
      Matcher m = CASE_COUNT.matcher(Files.readString(f, StandardCharsets.UTF_8));
      assertThat(m.find()).as("%s states its case_count", f).isTrue();
      cases += Integer.parseInt(m.group(1));
    }
    groups = files.size();
    assertThat(cases).as("cases in the pack").isPositive();
  }

  @Test
  void theTopReadme_statesThePacksCasesAndGroups_andTheTotalARunPrints() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    assertThat(figures(readme, "the case pack: (\\d+) cases in (\\d+) groups"))
        .as("README.md: the case pack's size")
        .containsExactly(cases, groups);
    assertThat(figures(readme, "(\\d+) group lines, total: (\\d+) passed, 0 failed, 0 skipped"))
        .as("README.md: the conformance run's comment")
        .containsExactly(groups, cases);
  }

  @Test
  void theConformanceReadme_statesThePacksCases() throws IOException {
    String readme = Files.readString(ROOT.resolve("conformance/README.md"), StandardCharsets.UTF_8);
    assertThat(figures(readme, "(\\d+) cases in all\\."))
        .as("conformance/README.md: the pack's size")
        .containsExactly(cases);
  }

  /** The numbers {@code pattern}'s groups hold at its one place in {@code text}. */
  private static List<Integer> figures(String text, String pattern) {
    Matcher m = Pattern.compile(pattern).matcher(text);
    assertThat(m.find()).as("the text holds /%s/", pattern).isTrue();
    List<Integer> out = new ArrayList<>();
    for (int g = 1; g <= m.groupCount(); g++) {
      out.add(Integer.parseInt(m.group(g)));
    }
    assertThat(m.find()).as("/%s/ occurs once", pattern).isFalse();
    return out;
  }
}
