package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import org.junit.jupiter.api.Test;

/**
 * A long option with two letters swapped names the option meant: picocli's own guess, which
 * compares pairs of letters, named none for {@code --prot}.
 */
class UnknownOptionNearestTest {
  @Test
  void twoSwappedLetters_nameTheOptionMeant() {
    MeshCommandTest.Run r = mesh("serve", "--prot", "8080");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("mesh serve: Unknown option: '--prot'; did you mean --port?");
  }
}
