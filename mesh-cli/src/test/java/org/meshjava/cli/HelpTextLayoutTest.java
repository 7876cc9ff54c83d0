package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command's {@code --help} keeps each word of its texts on one line. picocli wraps at the
 * line breaks Java's {@code BreakIterator} allows, which fall after a {@code .}, {@code :} or
 * {@code /} inside a word: {@code mesh journal verify --help} printed {@code FILE.} at the end of
 * one line and {@code snapshots} at the start of the next, and URLs, {@code did:key}s and file
 * names split the same way wherever a line ended.
 */
class HelpTextLayoutTest {
  @Test
  void everyWordOfEveryHelpText_isWholeOnOneLine() {
    List<String> split = new ArrayList<>();
    int words = 0;
    for (CommandLine command : CommandTree.all(new CommandLine(new Mesh()))) {
      List<String> args = new ArrayList<>(CommandTree.path(command));
      args.add("--help");
      MeshCommandTest.Run help = MeshCommandTest.mesh(args.toArray(String[]::new));
      assertThat(help.code()).as(String.join(" ", args)).isZero();
      Set<String> tokens = new LinkedHashSet<>();
      for (String line : help.out().split("\\R")) {
        tokens.addAll(Arrays.asList(line.strip().split("\\s+")));
      }
      for (String word : words(command.getCommandSpec())) {
        // A word wider than the description column must break somewhere; none is that long.
        words++;
        if (!tokens.contains(word)) {
          split.add(String.join(" ", args) + ": " + word);
        }
      }
    }
    assertThat(words).isGreaterThan(1000);
    assertThat(split).isEmpty();
  }

  /**
   * The words of the texts help shows for {@code spec}: its own and its arguments' descriptions.
   */
  static List<String> words(CommandSpec spec) {
    List<String> texts = new ArrayList<>(Arrays.asList(spec.usageMessage().description()));
    texts.addAll(Arrays.asList(spec.usageMessage().footer()));
    for (ArgSpec a : spec.args()) {
      texts.addAll(Arrays.asList(a.description()));
    }
    List<String> words = new ArrayList<>();
    for (String text : texts) {
      for (String word : text.strip().split("\\s+")) {
        if (!word.isEmpty() && !word.contains("%") && !word.contains("${")) {
          words.add(word);
        }
      }
    }
    return words;
  }
}
