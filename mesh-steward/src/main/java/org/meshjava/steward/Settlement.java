package org.meshjava.steward;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.DebitResult;

/**
 * One serve's hold on its grant, from the authorisation to the debit (§2 phases 2 and 3): the
 * single place a serve's reserved joule ceiling is turned into a debit.
 *
 * <p>Design note. The serve pipeline settles the handle exactly once, in a {@code finally}, so no
 * path out of the meter phase (an engine that throws, a refusal after the work, a meter that fails,
 * a bug) can leave the ceiling reserved. What is debited is the last figure {@linkplain #charge
 * charged}: the metered energy, or nothing for a serve refused before any work. A handle settled
 * with no figure charged debits the request's whole ceiling, as a crash does, since nothing metered
 * what ran (§2.2). An ungranted serve holds nothing; settling it debits nothing.
 *
 * <p>Not thread-safe; it belongs to one serve.
 */
final class Settlement {
  private final Authoriser.@Nullable Authorised authorised;
  private final @Nullable Authoriser authoriser;
  private final long ceilingUj;
  private @Nullable Energy charged;
  private boolean settled;

  private Settlement(
      @Nullable Authoriser authoriser, Authoriser.@Nullable Authorised authorised, long ceiling) {
    this.authoriser = authoriser;
    this.authorised = authorised;
    this.ceilingUj = ceiling;
  }

  /** The handle of a serve that rides on no grant. */
  static Settlement ungranted() {
    return new Settlement(null, null, 0);
  }

  /** The handle of a serve {@code authoriser} authorised and journalled as {@code authorised}. */
  static Settlement granted(
      Authoriser authoriser, Authoriser.Authorised authorised, ServeRequest request) {
    return new Settlement(
        Objects.requireNonNull(authoriser, "authoriser"),
        Objects.requireNonNull(authorised, "authorised"),
        request.jouleCeilingUj());
  }

  /** The leaf grant this serve debits, if it rides on one. */
  Optional<ContentId> grantId() {
    return authorised == null
        ? Optional.empty()
        : Optional.of(authorised.authorisation().grantId().contentId());
  }

  /** The journal sequence of the {@code Authorised} record, if the serve rides on a grant. */
  OptionalLong authorisedAt() {
    return authorised == null ? OptionalLong.empty() : OptionalLong.of(authorised.journalSeq());
  }

  /**
   * Sets the figure the settlement will debit: what the meter read, or nothing for a serve refused
   * before any work. A later charge replaces an earlier one.
   *
   * @throws IllegalStateException once settled
   */
  void charge(Energy spent) {
    if (settled) {
      throw new IllegalStateException("the serve is settled; nothing more can be charged");
    }
    charged = Objects.requireNonNull(spent, "spent");
  }

  /**
   * Debits the charged figure on every link of the grant and journals it, or, with nothing charged,
   * the request's ceiling. Call exactly once.
   *
   * @param awaitDurable whether to wait for the {@code Debited} record to reach storage; a serve
   *     that goes on to seal need not, since its {@code Sealed} record's sync covers it
   * @return the debit, or empty for an ungranted serve
   * @throws ServeException {@code NOT_RECORDED} if the debit cannot be journalled
   * @throws IllegalStateException if the handle was settled before
   */
  Optional<DebitResult> settle(boolean awaitDurable) throws ServeException {
    if (settled) {
      throw new IllegalStateException("a serve's grant is settled once, and this one was");
    }
    settled = true;
    if (authoriser == null || authorised == null) {
      return Optional.empty();
    }
    Energy spent = charged != null ? charged : Energy.estimated(ceilingUj);
    return Optional.of(authoriser.debit(authorised, spent, spent.uj(), awaitDurable));
  }

  /** Whether {@link #settle} ran. */
  boolean settled() {
    return settled;
  }
}
