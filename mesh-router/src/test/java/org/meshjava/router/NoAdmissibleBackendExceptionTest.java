package org.meshjava.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;

/**
 * A refusal read back by Java serialization (an exception sent between processes, or kept in a
 * session) keeps its message and its hint; its candidates, which are not serializable, read as none
 * rather than null.
 */
class NoAdmissibleBackendExceptionTest {
  @Test
  void aRefusalReadBack_keepsItsHint_andHasNoCandidates() throws Exception {
    NoAdmissibleBackendException thrown =
        new NoAdmissibleBackendException(
            List.of(
                new RouteCandidate(
                    "small",
                    Fidelity.F1,
                    500,
                    Optional.of(
                        new Inadmissibility(Inadmissibility.Kind.BELOW_FLOOR, "below floor")))),
            "no admissible backend of 1",
            Fidelity.F4,
            1_000);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(thrown);
    }
    NoAdmissibleBackendException read;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      read = (NoAdmissibleBackendException) in.readObject();
    }
    assertThat(read.getMessage()).isEqualTo("no admissible backend of 1");
    assertThat(read.hint())
        .isEqualTo("a floor of F1 or lower would admit small")
        .isEqualTo(thrown.hint());
    assertThat(read.candidates()).isEmpty();
  }
}
