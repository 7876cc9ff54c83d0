package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code mesh help COMMAND} prints that command's usage, as {@code mesh COMMAND --help} does:
 * picocli's usual {@code help} subcommand, which the launcher's usage and its C1-only list name.
 */
class HelpSubcommandTest {
  /** Regression: "mesh: unknown command 'help' (see 'mesh --help')" and exit 2. */
  @Test
  void helpDemo_printsTheDemosUsage() {
    MeshCommandTest.Run help = MeshCommandTest.mesh("help", "demo");
    MeshCommandTest.Run flag = MeshCommandTest.mesh("demo", "--help");

    assertThat(help.code()).as(help.err()).isZero();
    assertThat(help.err()).isEmpty();
    assertThat(help.out()).startsWith("Usage: mesh demo").isEqualTo(flag.out());
  }

  /** Without a command it prints mesh's own usage, which lists it. */
  @Test
  void helpAlone_printsMeshsUsage() {
    MeshCommandTest.Run help = MeshCommandTest.mesh("help");

    assertThat(help.code()).as(help.err()).isZero();
    assertThat(help.out()).isEqualTo(MeshCommandTest.mesh("--help").out()).contains("  help ");
  }

  /** A command that is not one is refused in one line, as any usage mistake is. */
  @Test
  void helpOfAnUnknownCommand_isOneLine() {
    MeshCommandTest.Run help = MeshCommandTest.mesh("help", "nosuch");

    assertThat(help.code()).isEqualTo(2);
    assertThat(help.out()).isEmpty();
    assertThat(help.err().strip().lines()).as(help.err()).hasSize(1);
  }
}
