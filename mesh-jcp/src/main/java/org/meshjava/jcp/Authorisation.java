package org.meshjava.jcp;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ContentId;

/**
 * A grant decision the {@link Gate} admitted: the serve may run. While it is open it holds the
 * request's joule ceiling against every link of the chain, so concurrent serves cannot spend the
 * same budget twice. Settle it exactly once: {@link Gate#debit} after the work, or {@link
 * Gate#release} if the serve failed before any work.
 *
 * <p>Holds every fact of the decision a journal records (§2.2): the presentation, the request id,
 * the model, the decision time and the ceiling. Immutable and thread-safe; only a gate creates one.
 */
public final class Authorisation {
  private final Gate gate;
  private final Presentation presentation;
  private final ContentId requestId;
  private final long ceilingUj;
  private final Optional<ContentId> model;
  private final Instant decisionTime;
  private final Reservation reservation;

  Authorisation(
      Gate gate,
      Presentation presentation,
      ContentId requestId,
      long ceilingUj,
      Optional<ContentId> model,
      Instant decisionTime,
      Reservation reservation) {
    this.gate = gate;
    this.presentation = presentation;
    this.requestId = requestId;
    this.ceilingUj = ceilingUj;
    this.model = model;
    this.decisionTime = decisionTime;
    this.reservation = reservation;
  }

  /**
   * The least {@link MaxCostUj} over every link of {@code chain}, empty if none has one. Both a
   * decision and a resumed one ({@link Gate#resume}) judge their debit against it.
   */
  private static OptionalLong tightestMaxCost(GrantChain chain) {
    long maxCost = Long.MAX_VALUE;
    boolean anyMaxCost = false;
    for (SignedGrant link : chain.links()) {
      for (Caveat c : link.grant().caveats()) {
        if (c instanceof MaxCostUj m) {
          anyMaxCost = true;
          maxCost = Math.min(maxCost, m.uj());
        }
      }
    }
    return anyMaxCost ? OptionalLong.of(maxCost) : OptionalLong.empty();
  }

  Gate gate() {
    return gate;
  }

  /** Returns the presentation decided. */
  public Presentation presentation() {
    return presentation;
  }

  /** Returns the leaf grant's id, the {@code grant_id} a receipt names. */
  public GrantId grantId() {
    return presentation.grantId();
  }

  /** Returns every link's id, root first; each is debited. */
  public List<GrantId> links() {
    return presentation.chain().ids();
  }

  /** Returns the request id decided over. */
  public ContentId requestId() {
    return requestId;
  }

  /** Returns the request's joule ceiling, reserved on every link until settled. */
  public long ceilingUj() {
    return ceilingUj;
  }

  /** Returns the weights digest decided over, if the backend named one. */
  public Optional<ContentId> model() {
    return model;
  }

  /** Returns the decision time. */
  public Instant decisionTime() {
    return decisionTime;
  }

  /** Returns the tightest {@link MaxCostUj} over the chain, checked at debit; empty if none. */
  public OptionalLong maxCostUj() {
    return tightestMaxCost(presentation.chain());
  }

  /** Returns the ledger's reservation. */
  public Reservation reservation() {
    return reservation;
  }

  @Override
  public String toString() {
    return "Authorisation[grant="
        + grantId()
        + ", request="
        + requestId
        + ", ceiling="
        + ceilingUj
        + " µJ, at="
        + decisionTime
        + "]";
  }
}
