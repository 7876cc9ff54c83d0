package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import org.junit.jupiter.api.Test;

/**
 * Regression: a mistyped option's value was named as a second unknown option on a command with no
 * required option ({@code mesh serve --jounral x}: "Unknown options: '--jounral', 'x'"), where a
 * command with one ({@code mesh key generate --output k.key}) named the option alone. Both now name
 * the option alone, with what was meant.
 */
class UnknownOptionValueTest {
  @Test
  void aMistypedOptionsValue_isNotNamedAsAnotherUnknownOption() {
    MeshCommandTest.Run r = mesh("serve", "--jounral", "steward.journal");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err())
        .startsWith("mesh serve: Unknown option: '--jounral'; did you mean --journal?")
        .doesNotContain("'steward.journal'");
  }
}
