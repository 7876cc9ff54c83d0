package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@link HelpText} at the narrowest width picocli allows (55, where a user's {@code
 * picocli.usage.width} or a small terminal puts it), at the default 80 and at a wide 160: every
 * command's help is drawn, no line is wider than the width unless it is one word that cannot be
 * broken, and no word of a description is lost or split.
 */
class HelpTextWidthsTest {
  @Test
  void everyHelpText_atNarrowDefaultAndWideWidths_fitsAndKeepsEveryWord() {
    List<String> problems = new ArrayList<>();
    for (int width : new int[] {55, 80, 160}) {
      CommandLine root = new CommandLine(new Mesh());
      root.setHelpFactory(new HelpText());
      root.setUsageHelpWidth(width);
      for (CommandLine command : CommandTree.all(root)) {
        String where = width + " " + String.join(" ", CommandTree.path(command));
        StringWriter text = new StringWriter();
        command.usage(new PrintWriter(text, true), CommandLine.Help.Ansi.OFF);
        Set<String> tokens = new HashSet<>();
        for (String line : text.toString().split("\\R")) {
          tokens.addAll(Arrays.asList(line.strip().split("\\s+")));
          if (line.length() > width && line.strip().contains(" ")) {
            problems.add(where + ": " + line.length() + " wide: " + line);
          }
        }
        for (String word : HelpTextLayoutTest.words(command.getCommandSpec())) {
          if (!tokens.contains(word) && word.length() < width / 2) {
            problems.add(where + ": split or lost: " + word);
          }
        }
      }
    }
    assertThat(problems).isEmpty();
  }
}
