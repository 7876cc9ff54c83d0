package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.WeightsBinding;

/**
 * A backend whose description fails (an engine whose {@code weights()} throws) failed {@code GET
 * /v1/models} for every client, 500 in place of the list; it is now left out of the list, the rest
 * served, and the operator told once.
 */
class ModelListBrokenBackendTest {
  /** A backend named "broken" whose weights cannot be read. */
  private static final class Broken extends ForwardingEngine {
    Broken() {
      super(Fixture.reference("broken"));
    }

    @Override
    public Optional<WeightsBinding> weights() {
      throw new IllegalStateException("the weights file is gone");
    }
  }

  /** A backend named "unprintable" whose weights throw a throwable that cannot be printed. */
  private static final class Unprintable extends ForwardingEngine {
    Unprintable() {
      super(Fixture.reference("unprintable"));
    }

    @Override
    public Optional<WeightsBinding> weights() {
      throw new UnprintableException();
    }
  }

  private static List<String> ids(JsonNode list) {
    List<String> ids = new ArrayList<>();
    list.get("data").forEach(m -> ids.add(m.get("id").asText()));
    return ids;
  }

  @Test
  void aBackendWhoseDescriptionFails_isLeftOut_theRestListed_loggedOnce() {
    try (Fixture f = new Fixture(null, b -> b.backend(new Broken()), b -> {})) {
      AtomicReference<Fixture.Answer> first = new AtomicReference<>();
      AtomicReference<Fixture.Answer> second = new AtomicReference<>();
      String log =
          Fixture.stderrOf(
              () -> {
                first.set(f.get("/v1/models"));
                second.set(f.get("/v1/models"));
              });
      assertThat(first.get().status()).as(first.get().body()).isEqualTo(200);
      assertThat(ids(first.get().json()))
          .contains("small", "large", "auto")
          .doesNotContain("broken", "broken-ref");
      assertThat(second.get().body()).isEqualTo(first.get().body());
      assertThat(log.split("left out of /v1/models", -1)).hasSize(2);
      assertThat(log).contains("broken", "the weights file is gone");
      assertThat(f.get("/v1/models/small").status()).isEqualTo(200);
      assertThat(f.get("/v1/models/broken").status()).isEqualTo(404);
    }
  }

  /**
   * The backend's throw is foreign code, and so are its words: one whose {@code toString} throws,
   * read to log why it was left out, failed the whole list 500.
   */
  @Test
  void aBackendWhoseFailureCannotBePrinted_isLeftOut_theRestListed() {
    try (Fixture f = new Fixture(null, b -> b.backend(new Unprintable()), b -> {})) {
      AtomicReference<Fixture.Answer> list = new AtomicReference<>();
      String log = Fixture.stderrOf(() -> list.set(f.get("/v1/models")));
      assertThat(list.get().status()).as(list.get().body()).isEqualTo(200);
      assertThat(ids(list.get().json())).contains("small", "large").doesNotContain("unprintable");
      assertThat(log).contains("unprintable", UnprintableException.class.getName());
    }
  }
}
