package org.meshjava.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every {@code mesh} command shares: picocli's standard {@code --help} and {@code --version}
 * options, the version they print (so {@code mesh key -V} says what {@code mesh -V} says, not an
 * empty line; a subclass's {@code @Command} inherits this one's attributes), and the spec through
 * which it writes to the out and err its command line was given (the terminal, or a test's
 * writers).
 */
@Command(mixinStandardHelpOptions = true, versionProvider = MeshVersion.class)
abstract class MeshCommand {
  @Spec CommandSpec spec;

  /** Where the command writes its results: the out its command line was given. */
  final PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Where the command writes warnings and errors: the err its command line was given. */
  final PrintWriter err() {
    return spec.commandLine().getErr();
  }
}
