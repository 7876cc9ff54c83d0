package org.meshjava.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only groups subcommands ({@code mesh}, {@code mesh journal}, {@code mesh grant},
 * …): run without one, it prints its usage to stdout and exits 0, where picocli on its own would
 * refuse the missing subcommand.
 */
abstract class CommandGroup implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
