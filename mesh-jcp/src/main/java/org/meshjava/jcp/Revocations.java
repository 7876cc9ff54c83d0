package org.meshjava.jcp;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.meshjava.core.DenialLabel;

/**
 * Grants an operator has revoked, each from a point in time on. A decision at or after that time is
 * refused with {@link DenialLabel#REVOKED}; one before it stands, so replaying a journal at its
 * recorded times decides exactly as the steward did (§2.2). Revoking a grant revokes every chain
 * that contains it.
 *
 * <p>Thread-safe. Revoking an id twice keeps the earlier time: a revocation only ever widens.
 */
public final class Revocations {
  private final ConcurrentHashMap<GrantId, Instant> from = new ConcurrentHashMap<>();

  private Revocations() {}

  /** Returns an empty set of revocations. */
  public static Revocations none() {
    return new Revocations();
  }

  /** Revokes {@code id} from {@code at} on. */
  public void revoke(GrantId id, Instant at) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(at, "at");
    from.merge(id, at, (a, b) -> a.isBefore(b) ? a : b);
  }

  /** Returns the time {@code id} is revoked from, if it is. */
  public Optional<Instant> revokedFrom(GrantId id) {
    return Optional.ofNullable(from.get(id));
  }

  /** Every revoked id with the time it is revoked from, copied (for a journal snapshot). */
  public java.util.Map<GrantId, Instant> all() {
    return java.util.Map.copyOf(from);
  }

  /** Whether {@code id} is revoked for a decision at {@code decisionTime}. */
  public boolean isRevokedAt(GrantId id, Instant decisionTime) {
    Instant t = from.get(id);
    return t != null && !decisionTime.isBefore(t);
  }
}
