package org.meshjava.journal;

import java.time.Instant;
import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.core.Unsigned;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantId;

/**
 * A serve that was authorised but never debited: it was in flight when the steward stopped, and
 * whether its engine finished cannot be known from the journal (§2.2). It stays debited at its
 * request's joule ceiling, is never retried, and waits for an operator.
 *
 * <p>Immutable.
 *
 * @param authorisedSeq the journal record of its authorisation, or {@link #UNKNOWN_RECORD} for a
 *     hold a running steward kept after its journal threw unchecked on that record (whether the
 *     record was stored is known only at the next start, which lists it by number or not at all)
 * @param caller who presented the grant
 * @param backend the backend that held it
 * @param requestId the request
 * @param grantId the leaf grant it reserved against
 * @param ceilingUj what stays reserved: the request's joule ceiling
 * @param decidedAt when it was authorised
 */
public record Unresolved(
    long authorisedSeq,
    DidKey caller,
    String backend,
    ContentId requestId,
    GrantId grantId,
    long ceilingUj,
    Instant decidedAt) {

  /** The {@link #authorisedSeq} of a hold whose record's number is not known. */
  public static final long UNKNOWN_RECORD = -1;

  /**
   * Validates the record.
   *
   * @throws IllegalArgumentException if {@code authorisedSeq} is below {@link #UNKNOWN_RECORD} or
   *     {@code ceilingUj} is negative (a ceiling is a u64, §3)
   * @throws NullPointerException if any other component is null
   */
  public Unresolved {
    if (authorisedSeq < UNKNOWN_RECORD) {
      throw new IllegalArgumentException(
          "authorisedSeq must be a journal record's number or UNKNOWN_RECORD (-1): "
              + authorisedSeq);
    }
    Unsigned.u64("ceilingUj", ceilingUj);
    Objects.requireNonNull(caller, "caller");
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(grantId, "grantId");
    Objects.requireNonNull(decidedAt, "decidedAt");
  }

  @Override
  public String toString() {
    return "unresolved serve ("
        + (authorisedSeq == UNKNOWN_RECORD
            ? "its journal record not known until a restart"
            : "journal record " + authorisedSeq)
        + "): caller "
        + caller
        + ", backend "
        + backend
        + ", request "
        + requestId
        + ", grant "
        + grantId
        + ", "
        + ceilingUj
        + " uJ held at the ceiling since "
        + decidedAt;
  }
}
