package org.meshjava.steward;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What backends threw while the router judged them (§4), in the operator's log. Such a candidate's
 * reason says only that it failed while being judged, since every client reads the route (a
 * refusal's candidates, a served reply's route); what it threw, its Java class and message, which
 * may name a path or a host the operator runs, is the operator's ({@link
 * Inadmissibility#thrown()}), and this is where the operator of a server reads it. A backend that
 * throws while judged mostly does so for every request, so its first throw is logged at WARN and
 * each later one at DEBUG: the log says why at once, and is not flooded at the rate requests come.
 * Thread-safe.
 */
final class JudgingThrows {
  private static final Logger LOG = LoggerFactory.getLogger(JudgingThrows.class);

  /** The backends whose throw was logged at WARN; the router's names, a fixed set. */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  /** Logs what each of {@code candidates} threw while judged; nothing for one refused by a rule. */
  void log(List<RouteCandidate> candidates) {
    for (int i = 0; i < candidates.size(); i++) {
      RouteCandidate c = candidates.get(i);
      Optional<Inadmissibility> why = c.inadmissibility();
      if (why.isEmpty() || why.get().thrown().isEmpty()) {
        continue;
      }
      String thrown = why.get().thrown().get();
      if (warned.add(c.backend())) {
        LOG.warn(
            "backend {} failed while being judged, so it was passed over: {} (its later failures"
                + " are logged at debug)",
            c.backend(),
            thrown);
      } else {
        LOG.debug("backend {} failed while being judged: {}", c.backend(), thrown);
      }
    }
  }
}
