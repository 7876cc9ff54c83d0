package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import org.junit.jupiter.api.Test;

/**
 * A mistyped command names the command meant, as a mistyped option does: picocli's own guess, which
 * compares pairs of letters, named none for two swapped letters ({@code dmeo}), and never the
 * launcher's own commands ({@code test}, {@code format}, {@code bench}).
 */
class UnknownSubcommandNearestTest {
  /** Regression: "mesh: Unmatched argument at index 0: 'dmeo' (see 'mesh --help')", no guess. */
  @Test
  void twoSwappedLetters_nameTheCommandMeant() {
    MeshCommandTest.Run r = mesh("dmeo");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("'dmeo'; did you mean demo?");
  }

  @Test
  void aLaunchersOwnCommand_isNamedToo() {
    assertThat(mesh("tset").err()).contains("did you mean test?");
  }

  @Test
  void aMistypedSubcommandOfAGroup_namesTheOneMeant() {
    MeshCommandTest.Run r = mesh("journal", "inpsect", "j");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("mesh journal: ").contains("did you mean inspect?");
  }

  /**
   * Regression: "mesh: Unmatched argument at index 0: 'bogus'; did you mean log? (see 'mesh
   * --help')": picocli's letter-pair guess, which shares two letters with what was typed.
   */
  @Test
  void aWordNearNoCommand_namesNone() {
    MeshCommandTest.Run r = mesh("bogus");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("mesh: Unmatched argument at index 0: 'bogus' (see 'mesh --help')");
    assertThat(mesh("journal", "frobnicate", "j").err()).doesNotContain("did you mean");
  }
}
