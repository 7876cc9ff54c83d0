package org.meshjava.energy;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;

/**
 * What a meter knows about one counter: which domain it reads, whether it is live, and if not, why.
 * Immutable.
 *
 * @param counter a stable name for the counter, such as {@code rapl:intel-rapl:0} or {@code
 *     nvml:gpu0}
 * @param domain the domain it reads, when it maps onto one
 * @param state its liveness state
 * @param issue why it is not live; absent exactly when the state is {@link CounterState#LIVE}
 * @param detail human-readable facts for logs (never parse it; match on {@link #issue()})
 */
public record CounterStatus(
    String counter,
    Optional<EnergyDomain> domain,
    CounterState state,
    Optional<CounterIssue> issue,
    String detail) {

  /** Validates that a live counter has no issue and any other state has one. */
  public CounterStatus {
    Objects.requireNonNull(counter, "counter");
    Objects.requireNonNull(domain, "domain");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(issue, "issue");
    Objects.requireNonNull(detail, "detail");
    if ((state == CounterState.LIVE) != issue.isEmpty()) {
      throw new IllegalArgumentException(
          "a counter has an issue exactly when it is not live: " + state + " " + issue);
    }
  }

  static CounterStatus live(String counter, EnergyDomain domain, String detail) {
    return new CounterStatus(
        counter, Optional.of(domain), CounterState.LIVE, Optional.empty(), detail);
  }

  static CounterStatus notLive(
      String counter, EnergyDomain domain, CounterIssue issue, String detail) {
    return new CounterStatus(
        counter, Optional.of(domain), CounterState.NOT_LIVE, Optional.of(issue), detail);
  }

  static CounterStatus unavailable(
      String counter, Optional<EnergyDomain> domain, CounterIssue issue, String detail) {
    return new CounterStatus(counter, domain, CounterState.UNAVAILABLE, Optional.of(issue), detail);
  }

  /** A counter that could not be set up, for the reason {@code e} carries. */
  static CounterStatus unavailable(
      String counter, Optional<EnergyDomain> domain, CounterException e) {
    return unavailable(counter, domain, e.issue(), String.valueOf(e.getMessage()));
  }
}
