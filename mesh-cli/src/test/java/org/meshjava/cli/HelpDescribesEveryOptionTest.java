package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
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
    walk(
        new CommandLine(new Mesh()),
        (command, arg) -> {
          if (String.join(" ", arg.description()).strip().isEmpty()) {
            undescribed.add(command + " " + nameOf(arg));
          }
        });
    assertThat(undescribed).isEmpty();
  }

  /**
   * Regression: {@code mesh log checkpoint} and {@code mesh log prove} showed {@code
   * --server=<server>}, picocli's placeholder made from the field's name, where every other option
   * says what it takes ({@code FILE}, {@code DID}, {@code N}).
   */
  @Test
  void everyValueOfEveryCommand_isNamedForWhatItTakes_notForItsField() {
    List<String> placeholders = new ArrayList<>();
    walk(
        new CommandLine(new Mesh()),
        (command, arg) -> {
          boolean takesValue = !(arg instanceof OptionSpec o) || o.arity().max() > 0;
          if (takesValue && arg.paramLabel().startsWith("<")) {
            placeholders.add(command + " " + nameOf(arg) + " " + arg.paramLabel());
          }
        });
    assertThat(placeholders).isEmpty();
  }

  private static String nameOf(ArgSpec arg) {
    return arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
  }

  /** Calls {@code check} with every visible option and parameter of {@code cl} and below. */
  private static void walk(CommandLine cl, BiConsumer<String, ArgSpec> check) {
    String name = cl.getCommandSpec().qualifiedName();
    List<ArgSpec> args = new ArrayList<>(cl.getCommandSpec().options());
    args.addAll(cl.getCommandSpec().positionalParameters());
    for (ArgSpec arg : args) {
      if (!arg.hidden()) {
        check.accept(name, arg);
      }
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      walk(sub, check);
    }
  }
}
