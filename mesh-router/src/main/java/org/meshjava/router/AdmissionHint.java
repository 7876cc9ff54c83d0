package org.meshjava.router;

import java.util.ArrayList;
import java.util.List;
import org.meshjava.core.Fidelity;

/**
 * What would have admitted a request that no backend took ({@code NO_ADMISSIBLE_BACKEND}, §4),
 * worked out from the route's candidates: for each backend refused on the floor or the ceiling, the
 * floor and ceiling that admit it. The refusal's reason word and message stay as the conformance
 * vectors fix them; this is the sentence beside them that says what to change, for every front end
 * that shows the refusal ({@link NoAdmissibleBackendException#hint()}).
 *
 * <p>The router records only the first rule a backend fails, so a backend below the floor may also
 * be over the ceiling; the hint therefore compares the request's bounds with the backend's fidelity
 * and estimate itself, and names every bound that must move.
 */
public final class AdmissionHint {
  private AdmissionHint() {}

  /**
   * The hint for a request with {@code floor} and {@code ceilingUj} that none of {@code candidates}
   * took: one clause a backend, joined by "; ".
   */
  public static String of(List<RouteCandidate> candidates, Fidelity floor, long ceilingUj) {
    if (candidates.isEmpty()) {
      return "no backend is configured: add one (see README)";
    }
    List<String> clauses = new ArrayList<>();
    for (RouteCandidate c : candidates) {
      if (c.admissible()) {
        continue;
      }
      Inadmissibility.Kind kind = c.inadmissibility().orElseThrow().kind();
      if (kind == Inadmissibility.Kind.OVER_LIMIT || kind == Inadmissibility.Kind.NOT_PERMITTED) {
        // Neither bound is the obstacle: the request is over what the backend serves, or the
        // grant does not allow it.
        // The rule's own detail, not the candidate's whole line: the backend is named already,
        // and its fidelity and estimate are beside the point.
        clauses.add(
            c.backend()
                + " is not admitted by any floor or ceiling ("
                + c.inadmissibility().orElseThrow().detail()
                + ")");
        continue;
      }
      List<String> moves = new ArrayList<>();
      if (!c.fidelity().meets(floor)) {
        moves.add("a floor of " + c.fidelity() + " or lower");
      }
      if (c.estimateUj() > ceilingUj) {
        moves.add("a ceiling of " + c.estimateUj() + " uJ or more");
      }
      clauses.add(String.join(" and ", moves) + " would admit " + c.backend());
    }
    return String.join("; ", clauses);
  }
}
