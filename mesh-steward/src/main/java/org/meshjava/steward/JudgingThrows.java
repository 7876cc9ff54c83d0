package org.meshjava.steward;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What backends threw while the router judged them (§4), in the operator's log. Such a candidate's
 * reason says only that it failed while being judged, since every client reads the route (a
 * refusal's candidates, a served reply's route); what it threw, its Java class and message, which
 * may name a path or a host the operator runs, is the operator's ({@link
 * Inadmissibility#thrown()}), and this is where the operator of a server reads it.
 *
 * <p>A backend that throws while judged mostly does so for every request, so a throw is logged at
 * WARN at most once per backend in each {@link #WARN_EVERY}, and the others at DEBUG: the log says
 * why at once, is not flooded at the rate requests come, and a backend that fails again later (it
 * recovered, or it kept failing unnoticed) is said at WARN again. The gap is counted from the last
 * WARN, not from the last clean judging ({@link WarnLimit}): a backend that throws only for some
 * requests (a grant's {@code ModelIn} reads its weights, an ungranted request does not) is judged
 * cleanly between its throws. Thread-safe.
 */
final class JudgingThrows {
  private static final Logger LOG = LoggerFactory.getLogger(JudgingThrows.class);

  /** The least time between two WARNs for one backend. */
  static final Duration WARN_EVERY = Duration.ofHours(1);

  private final WarnLimit warnings;

  JudgingThrows() {
    this(System::nanoTime);
  }

  /** With {@code nanoTime} as the monotonic time the gap between WARNs is counted in (tests). */
  JudgingThrows(LongSupplier nanoTime) {
    this.warnings = new WarnLimit(WARN_EVERY, nanoTime);
  }

  /** Logs what each of {@code candidates} threw while judged; nothing for one refused by a rule. */
  void log(List<RouteCandidate> candidates) {
    for (int i = 0; i < candidates.size(); i++) {
      RouteCandidate c = candidates.get(i);
      Optional<Inadmissibility> why = c.inadmissibility();
      if (why.isEmpty() || why.get().thrown().isEmpty()) {
        continue;
      }
      String thrown = why.get().thrown().get();
      if (warnings.warnNow(c.backend())) {
        LOG.warn(
            "backend {} failed while being judged, so it was passed over: {} (its failures in"
                + " the next hour are logged at debug)",
            c.backend(),
            thrown);
      } else {
        LOG.debug("backend {} failed while being judged: {}", c.backend(), thrown);
      }
    }
  }
}
