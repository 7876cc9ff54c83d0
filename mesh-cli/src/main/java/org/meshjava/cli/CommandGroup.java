package org.meshjava.cli;

/**
 * A command that only groups subcommands ({@code mesh}, {@code mesh journal}, {@code mesh grant},
 * …): run without one, it prints its usage to stdout and exits 0, where picocli on its own would
 * refuse the missing subcommand.
 */
abstract class CommandGroup extends MeshCommand implements Runnable {
  @Override
  public void run() {
    spec.commandLine().usage(out());
  }
}
