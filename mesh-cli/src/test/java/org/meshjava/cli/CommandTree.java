package org.meshjava.cli;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine;

/** The commands of {@code mesh} as picocli's model lists them, for tests that visit each. */
final class CommandTree {
  private CommandTree() {}

  /** {@code c} and every command below it, each once (an alias names a command again). */
  static List<CommandLine> all(CommandLine c) {
    List<CommandLine> all = new ArrayList<>();
    all.add(c);
    for (CommandLine sub : new LinkedHashSet<>(c.getSubcommands().values())) {
      all.addAll(all(sub));
    }
    return all;
  }

  /** The commands below {@code c} that have no subcommands: the ones that run something. */
  static List<CommandLine> leaves(CommandLine c) {
    return all(c).stream().filter(x -> x.getSubcommands().isEmpty()).toList();
  }

  /** The words that name {@code c} after {@code mesh}: {@code [journal, verify]}. */
  static List<String> path(CommandLine c) {
    List<String> words = new ArrayList<>();
    for (CommandLine at = c; at.getParent() != null; at = at.getParent()) {
      words.addFirst(at.getCommandName());
    }
    return words;
  }
}
