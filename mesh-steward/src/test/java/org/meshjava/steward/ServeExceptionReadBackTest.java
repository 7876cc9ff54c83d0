package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;

/**
 * A routing refusal read back by Java serialization (an exception sent between processes, or kept
 * in a session) keeps its reason and message; its candidates, which are not serializable, read as
 * none rather than null, as the router's own refusal's do.
 */
class ServeExceptionReadBackTest {
  @Test
  void aRoutingRefusalReadBack_hasNoCandidates_notNull() throws Exception {
    ServeException thrown =
        new ServeException(
            ServeException.Reason.NO_ADMISSIBLE_BACKEND,
            "no admissible backend of 1",
            List.of(
                new RouteCandidate(
                    "small",
                    Fidelity.F1,
                    500,
                    Optional.of(
                        new Inadmissibility(Inadmissibility.Kind.BELOW_FLOOR, "below floor")))),
            null);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(thrown);
    }
    ServeException read;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      read = (ServeException) in.readObject();
    }
    assertThat(read.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);
    assertThat(read.getMessage()).isEqualTo(thrown.getMessage());
    assertThat(thrown.candidates()).hasSize(1);
    assertThat(read.candidates()).isNotNull().isEmpty();
  }
}
