package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Regression: the grant tools' {@code --help} listed {@code --issuer-key}, {@code --caller-key},
 * {@code --holder-key}, {@code --budget-uj}, {@code --not-before}, {@code --out} and delegate's
 * {@code --subject} with no word about them, so a user could not tell from the help which key
 * signs, in what unit a budget is, or how to write a time. Every option and parameter of every
 * command now says what it is.
 */
class HelpDescribesEveryOptionTest {
  @Test
  void everyOptionAndParameterOfEveryCommand_hasADescriptionInItsHelp() {
    List<String> undescribed = new ArrayList<>();
    walk(new CommandLine(new Mesh()), undescribed);
    assertThat(undescribed).isEmpty();
  }

  private static void walk(CommandLine cl, List<String> undescribed) {
    String name = cl.getCommandSpec().qualifiedName();
    List<ArgSpec> args = new ArrayList<>(cl.getCommandSpec().options());
    args.addAll(cl.getCommandSpec().positionalParameters());
    for (ArgSpec arg : args) {
      if (arg.hidden()) {
        continue;
      }
      String joined = String.join(" ", arg.description()).strip();
      if (joined.isEmpty()) {
        undescribed.add(
            name + " " + (arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel()));
      }
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      walk(sub, undescribed);
    }
  }
}
