package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ServeOutcome;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;
import org.meshjava.steward.ServeResult;

/**
 * The {@code usage} object every served response carries ({@link #usage}), and in it the {@code
 * energy} object: the receipt as readable JSON, its envelope as hex (what verifies, and what {@code
 * POST /v1/mesh/witness} takes), the provenance, the figure and the wedge metric, and the route
 * with every candidate. Public for {@link #candidates}, so other front ends show a route in the
 * same form as the HTTP binding.
 */
public final class EnergyUsage {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private EnergyUsage() {}

  /** Writes an API's own token fields of {@code usage} from the serve's outcome. */
  @FunctionalInterface
  interface Tokens {
    void write(JsonGenerator g, ServeOutcome outcome) throws IOException;
  }

  /**
   * A served reply's {@code usage} object: first the API's own token fields, which {@code tokens}
   * writes from the serve's outcome (each API names and details them its own way), then {@code
   * total_tokens}, the tokens in and out together, and last the {@link #energy energy} object. Both
   * chat APIs render it here, so the total and the energy stand the same in each. Written straight
   * to bytes when rendered ({@link WrittenJson}): it has no fields to read as a tree.
   */
  static JsonNode usage(ServeResult result, Tokens tokens) {
    return WrittenJson.node((g, serializers) -> writeUsage(g, result, tokens));
  }

  /** Writes {@link #usage}'s object. */
  static void writeUsage(JsonGenerator g, ServeResult result, Tokens tokens) throws IOException {
    ServeOutcome outcome = result.outcome();
    g.writeStartObject();
    tokens.write(g, outcome);
    g.writeNumberField("total_tokens", outcome.tokensIn() + outcome.tokensOut());
    g.writeFieldName("energy");
    writeEnergy(g, result);
    g.writeEndObject();
  }

  /** The {@code energy} object alone, written as {@link #usage} writes it. */
  static JsonNode energy(ServeResult result) {
    return WrittenJson.node((g, serializers) -> writeEnergy(g, result));
  }

  private static void writeEnergy(JsonGenerator g, ServeResult result) throws IOException {
    MeshReceipt r = result.receipt();
    g.writeStartObject();
    g.writeStringField("provenance", r.energy().provenance().name());
    g.writeNumberField("energy_uj", r.energy().uj());
    g.writeFieldName("uj_per_accepted_token");
    OptionalLong perToken = r.ujPerAcceptedToken();
    if (perToken.isPresent()) {
      g.writeNumber(perToken.getAsLong());
    } else {
      g.writeNull();
    }
    g.writeStringField("backend", r.backend());
    // Whose count the receipt's tokens_in/tokens_out are: the engine's own ids, or a remote
    // server's report (then the output commitment covers code points, not counted ids).
    g.writeStringField("token_accounting", result.accounting().name());
    g.writeFieldName("route");
    writeCandidates(g, result.route().candidates());
    g.writeFieldName("receipt");
    ReceiptJson.write(result.sealed(), g);
    g.writeFieldName("envelope_hex");
    HexText.write(g, result.envelope());
    g.writeStringField("envelope_id", result.envelope().id().hex());
    g.writeEndObject();
  }

  /**
   * The route as JSON, one object per candidate in routing order: {@code backend}, {@code
   * fidelity}, {@code estimate_uj}, {@code admissible}, and {@code reason} when inadmissible.
   */
  public static ArrayNode candidates(List<RouteCandidate> candidates) {
    ArrayNode arr = NODES.arrayNode();
    for (RouteCandidate c : candidates) {
      ObjectNode o = arr.addObject();
      fields(
          c,
          new CandidateFields<RuntimeException>() {
            @Override
            public void text(String key, String value) {
              o.put(key, value);
            }

            @Override
            public void number(String key, long value) {
              o.put(key, value);
            }

            @Override
            public void flag(String key, boolean value) {
              o.put(key, value);
            }
          });
    }
    return arr;
  }

  /**
   * Writes {@link #candidates}' array onto {@code g} without building it: every served reply's
   * {@code usage.energy} carries the route, and its tree (a map per candidate, a node per value)
   * was built only to be written once.
   */
  static void writeCandidates(JsonGenerator g, List<RouteCandidate> candidates) throws IOException {
    CandidateFields<IOException> fields =
        new CandidateFields<>() {
          @Override
          public void text(String key, String value) throws IOException {
            g.writeStringField(key, value);
          }

          @Override
          public void number(String key, long value) throws IOException {
            g.writeNumberField(key, value);
          }

          @Override
          public void flag(String key, boolean value) throws IOException {
            g.writeBooleanField(key, value);
          }
        };
    g.writeStartArray();
    for (RouteCandidate c : candidates) {
      g.writeStartObject();
      fields(c, fields);
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /** Where a candidate's fields go: a tree's object ({@link #candidates}) or a generator. */
  private interface CandidateFields<E extends Exception> {
    void text(String key, String value) throws E;

    void number(String key, long value) throws E;

    void flag(String key, boolean value) throws E;
  }

  /** A candidate's fields, in their order: the one list both forms of the route are made from. */
  private static <E extends Exception> void fields(RouteCandidate c, CandidateFields<E> to)
      throws E {
    to.text("backend", c.backend());
    to.text("fidelity", c.fidelity().name());
    to.number("estimate_uj", c.estimateUj());
    to.flag("admissible", c.admissible());
    Optional<Inadmissibility> why = c.inadmissibility();
    if (why.isPresent()) {
      to.text("reason", why.get().detail());
    }
  }
}
