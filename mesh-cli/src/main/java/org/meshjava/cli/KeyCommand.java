package org.meshjava.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Jcp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mesh key generate|show}: Ed25519 key files for stewards and callers. */
@Command(
    name = "key",
    description = "Make and read key files (hex Ed25519 seed, mode 0600).",
    subcommands = {KeyCommand.Generate.class, KeyCommand.Show.class})
final class KeyCommand extends CommandGroup {
  @Command(
      name = "generate",
      description = "Generate a key, write its seed to --out and print its did:key.")
  static final class Generate extends MeshCommand implements Callable<Integer> {
    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "Where to write the key.")
    Path out;

    @Option(names = "--force", description = "Overwrite an existing file.")
    boolean force;

    @Override
    public Integer call() throws CliException {
      SigningKey key = Jcp.newKey();
      KeyFile.write(out, key, force);
      out().println(Jcp.identity(key).value());
      return 0;
    }
  }

  @Command(name = "show", description = "Print a key file's did:key.")
  static final class Show extends MeshCommand implements Callable<Integer> {
    @Option(names = "--key", required = true, paramLabel = "FILE", description = "The key file.")
    Path key;

    @Override
    public Integer call() throws CliException {
      out().println(Jcp.identity(KeyFile.read(key, err())).value());
      return 0;
    }
  }
}
