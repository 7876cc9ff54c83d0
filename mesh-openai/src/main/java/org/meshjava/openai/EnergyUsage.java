package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.BiConsumer;
import org.meshjava.core.ServeOutcome;
import org.meshjava.receipt.MeshReceipt;
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

  /**
   * A served reply's {@code usage} object: first the API's own token fields, which {@code tokens}
   * puts from the serve's outcome (each API names and details them its own way), then {@code
   * total_tokens}, the tokens in and out together, and last the {@link #of energy} object. Both
   * chat APIs build it here, so the total and the energy stand the same in each.
   */
  static ObjectNode usage(ServeResult result, BiConsumer<ObjectNode, ServeOutcome> tokens) {
    ObjectNode u = NODES.objectNode();
    ServeOutcome outcome = result.outcome();
    tokens.accept(u, outcome);
    u.put("total_tokens", outcome.tokensIn() + outcome.tokensOut());
    u.set("energy", of(result));
    return u;
  }

  static ObjectNode of(ServeResult result) {
    MeshReceipt r = result.receipt();
    ObjectNode e = NODES.objectNode();
    e.put("provenance", r.energy().provenance().name());
    e.put("energy_uj", r.energy().uj());
    if (r.ujPerAcceptedToken().isPresent()) {
      e.put("uj_per_accepted_token", r.ujPerAcceptedToken().getAsLong());
    } else {
      e.putNull("uj_per_accepted_token");
    }
    e.put("backend", r.backend());
    // Whose count the receipt's tokens_in/tokens_out are: the engine's own ids, or a remote
    // server's report (then the output commitment covers code points, not counted ids).
    e.put("token_accounting", result.accounting().name());
    e.set("route", candidates(result.route().candidates()));
    e.set("receipt", ReceiptJson.of(result.sealed()));
    e.set("envelope_hex", HexText.of(result.envelope()));
    e.put("envelope_id", result.envelope().id().hex());
    return e;
  }

  /**
   * The route as JSON, one object per candidate in routing order: {@code backend}, {@code
   * fidelity}, {@code estimate_uj}, {@code admissible}, and {@code reason} when inadmissible.
   */
  public static ArrayNode candidates(List<RouteCandidate> candidates) {
    ArrayNode arr = NODES.arrayNode();
    for (RouteCandidate c : candidates) {
      ObjectNode o = arr.addObject();
      o.put("backend", c.backend());
      o.put("fidelity", c.fidelity().name());
      o.put("estimate_uj", c.estimateUj());
      o.put("admissible", c.admissible());
      c.inadmissibility().ifPresent(i -> o.put("reason", i.detail()));
    }
    return arr;
  }
}
