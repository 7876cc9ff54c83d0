package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * The demo's {@code NO_ADMISSIBLE_BACKEND} refusal prints the router's hint (what floor or ceiling
 * would have admitted which backend; its rules are mesh-router's AdmissionHintTest).
 */
class AdmissionHintTest {
  @Test
  void theDemosRefusal_carriesTheHint() {
    Run r = MeshCommandTest.demo().run();
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("\"refused\" : \"NO_ADMISSIBLE_BACKEND\"")
        .contains("\"hint\" : \"")
        .contains("a ceiling of 41400 uJ or more would admit frontier");
  }
}
