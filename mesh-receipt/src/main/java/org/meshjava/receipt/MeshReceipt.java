package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.identity.DidKey;

/**
 * A mesh/1 receipt (§6.1): what was asked, who served it and how, what it cost, and where it stands
 * in the steward's chain. Immutable; every coupling rule is checked at construction, so a receipt
 * that exists is one that may be sealed.
 *
 * <p>The efficiency figures ({@code uj_per_accepted_token}, {@code uj_per_decision}, {@code
 * uj_per_option_scored}) are derived, never stored, so they cannot disagree with the energy they
 * are computed from. Integer µJ, floor division (§6.2).
 *
 * <p>{@link SignedCore} turns a receipt into the canonical CBOR map that JCR-1 signs and back.
 *
 * @param requestId the request's content id
 * @param grantId the leaf grant debited, when the serve rode on a grant
 * @param backend the backend that served
 * @param recipe the composed model's name
 * @param weights the bound weights and precision, when the backend names them (§3.6)
 * @param route the router's one-line justification (§4)
 * @param tokensIn outcome counter (u32)
 * @param tokensOut outcome counter (u32)
 * @param tokensAccepted outcome counter (u32), the wedge denominator
 * @param cacheHitTokens outcome counter (u32)
 * @param specProposed outcome counter (u32)
 * @param specAccepted outcome counter (u32)
 * @param fidelityFloor the floor the request demanded
 * @param fidelityReport advertised and delivered fidelity, when the backend reported a delivered
 *     level (§3.2.1)
 * @param fidelityMet whether the served backend met the floor
 * @param energy the metered figure with its provenance (§3.3)
 * @param decision what a typed decision answered (§3.6); absent for a generation
 * @param grantBreach the denial label when the debit breached the grant (§2)
 * @param outputCommitment the commitment to a generation's output (§6.4)
 * @param sequence position in the steward's chain, from 0 (§6.3)
 * @param prev content id of the previous envelope; absent exactly at sequence 0
 * @param nonce per-receipt nonce
 * @param steward the sealing identity, the COSE kid
 */
public record MeshReceipt(
    ContentId requestId,
    Optional<ContentId> grantId,
    String backend,
    String recipe,
    Optional<WeightsBinding> weights,
    String route,
    long tokensIn,
    long tokensOut,
    long tokensAccepted,
    long cacheHitTokens,
    long specProposed,
    long specAccepted,
    Fidelity fidelityFloor,
    Optional<FidelityReport> fidelityReport,
    boolean fidelityMet,
    Energy energy,
    Optional<DecisionShape> decision,
    Optional<String> grantBreach,
    Optional<ContentId> outputCommitment,
    long sequence,
    Optional<ContentId> prev,
    Nonce nonce,
    DidKey steward) {

  /** The profile string every receipt carries under {@code mesh_receipt}. */
  public static final String PROFILE = "mesh/1";

  private static final long U32_MAX = 0xFFFF_FFFFL;

  /** Validates every field and coupling. */
  public MeshReceipt {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(grantId, "grantId");
    requireName("backend", backend);
    requireName("recipe", recipe);
    Objects.requireNonNull(weights, "weights");
    requireName("route", route);
    u32("tokens_in", tokensIn);
    u32("tokens_out", tokensOut);
    u32("tokens_accepted", tokensAccepted);
    u32("cache_hit_tokens", cacheHitTokens);
    u32("spec_proposed", specProposed);
    u32("spec_accepted", specAccepted);
    if (specAccepted > specProposed) {
      // A draft cannot have more tokens accepted than it proposed (§5); a core claiming so is
      // refused on decode, not only when an engine's outcome is built.
      throw new IllegalArgumentException(
          "spec_accepted (" + specAccepted + ") exceeds spec_proposed (" + specProposed + ")");
    }
    Objects.requireNonNull(fidelityFloor, "fidelityFloor");
    Objects.requireNonNull(fidelityReport, "fidelityReport");
    Objects.requireNonNull(energy, "energy");
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(grantBreach, "grantBreach");
    Objects.requireNonNull(outputCommitment, "outputCommitment");
    Objects.requireNonNull(prev, "prev");
    Objects.requireNonNull(nonce, "nonce");
    Objects.requireNonNull(steward, "steward");
    if (fidelityReport.isPresent()
        && fidelityMet != fidelityReport.get().delivered().meets(fidelityFloor)) {
      throw new IllegalArgumentException(
          "fidelity_met must follow the delivered level when one is reported (§3.2.1)");
    }
    if (decision.isPresent() && outputCommitment.isPresent()) {
      throw new IllegalArgumentException("a typed decision carries no output commitment (§6.4)");
    }
    if (grantBreach.isPresent()) {
      if (grantId.isEmpty()) {
        throw new IllegalArgumentException("grant_breach needs a grant_id");
      }
      requireName("grant_breach", grantBreach.get());
    }
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence must be non-negative: " + sequence);
    }
    if ((sequence == 0) != prev.isEmpty()) {
      throw new IllegalArgumentException(
          "prev is absent exactly at sequence 0 (§6.3); sequence "
              + sequence
              + (prev.isEmpty() ? " has no prev" : " has a prev"));
    }
  }

  /** Whether this receipt is for a typed decision. */
  public boolean isDecision() {
    return decision.isPresent();
  }

  /**
   * The wedge metric of a generation (§6.2): µJ per accepted token, floor division. Absent for a
   * decision and when no token was accepted.
   */
  public OptionalLong ujPerAcceptedToken() {
    if (decision.isPresent() || tokensAccepted == 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(energy.uj() / tokensAccepted);
  }

  /** The wedge metric of a decision (§3.6): µJ per answered question. */
  public OptionalLong ujPerDecision() {
    return decision.isPresent()
        ? OptionalLong.of(energy.uj() / decision.get().questions())
        : OptionalLong.empty();
  }

  /** µJ per scored option of a decision (§3.6). */
  public OptionalLong ujPerOptionScored() {
    return decision.isPresent()
        ? OptionalLong.of(energy.uj() / decision.get().optionsScored())
        : OptionalLong.empty();
  }

  /** Returns this receipt's signed core: the canonical CBOR map JCR-1 signs (§6.1). */
  public CborMap toSignedCore() {
    return SignedCore.encode(this);
  }

  /**
   * Reads a receipt back from its signed core (the inverse of {@link #toSignedCore}), with every
   * rule {@link Jcr1#open} applies to a payload.
   *
   * @throws ReceiptException if {@code core} is not the signed core of a valid receipt
   */
  public static MeshReceipt fromSignedCore(CborValue core) throws ReceiptException {
    return SignedCore.decode(core);
  }

  /** Returns a builder pre-filled with this receipt's fields. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  private static void requireName(String field, String value) {
    Objects.requireNonNull(value, field);
    if (value.isEmpty() || value.chars().anyMatch(c -> c == '\n' || c == '\r')) {
      throw new IllegalArgumentException(field + " must be a non-empty single line");
    }
  }

  private static void u32(String field, long v) {
    if (v < 0 || v > U32_MAX) {
      throw new IllegalArgumentException(field + " must be a u32: " + v);
    }
  }

  /**
   * Collects a receipt's fields. The chain fields ({@code sequence}, {@code prev}) are usually left
   * for the steward's receipt log to stamp. Not thread-safe.
   */
  public static final class Builder {
    private ContentId requestId;
    private Optional<ContentId> grantId = Optional.empty();
    private String backend;
    private String recipe;
    private Optional<WeightsBinding> weights = Optional.empty();
    private String route;
    private long tokensIn;
    private long tokensOut;
    private long tokensAccepted;
    private long cacheHitTokens;
    private long specProposed;
    private long specAccepted;
    private Fidelity fidelityFloor;
    private Optional<FidelityReport> fidelityReport = Optional.empty();
    private boolean fidelityMet;
    private Energy energy;
    private Optional<DecisionShape> decision = Optional.empty();
    private Optional<String> grantBreach = Optional.empty();
    private Optional<ContentId> outputCommitment = Optional.empty();
    private long sequence;
    private Optional<ContentId> prev = Optional.empty();
    private Nonce nonce;
    private DidKey steward;

    @SuppressWarnings("NullAway.Init") // required parts are checked in build()
    private Builder() {}

    private Builder(MeshReceipt r) {
      requestId = r.requestId;
      grantId = r.grantId;
      backend = r.backend;
      recipe = r.recipe;
      weights = r.weights;
      route = r.route;
      tokensIn = r.tokensIn;
      tokensOut = r.tokensOut;
      tokensAccepted = r.tokensAccepted;
      cacheHitTokens = r.cacheHitTokens;
      specProposed = r.specProposed;
      specAccepted = r.specAccepted;
      fidelityFloor = r.fidelityFloor;
      fidelityReport = r.fidelityReport;
      fidelityMet = r.fidelityMet;
      energy = r.energy;
      decision = r.decision;
      grantBreach = r.grantBreach;
      outputCommitment = r.outputCommitment;
      sequence = r.sequence;
      prev = r.prev;
      nonce = r.nonce;
      steward = r.steward;
    }

    /** Sets {@code request_id}. */
    public Builder requestId(ContentId v) {
      requestId = v;
      return this;
    }

    /** Sets {@code grant_id}. */
    public Builder grantId(Optional<ContentId> v) {
      grantId = v;
      return this;
    }

    /** Sets {@code backend}. */
    public Builder backend(String v) {
      backend = v;
      return this;
    }

    /** Sets {@code recipe}. */
    public Builder recipe(String v) {
      recipe = v;
      return this;
    }

    /** Sets {@code weights_digest} and {@code precision} together. */
    public Builder weights(Optional<WeightsBinding> v) {
      weights = v;
      return this;
    }

    /** Sets {@code route}. */
    public Builder route(String v) {
      route = v;
      return this;
    }

    /** Sets the six outcome counters. */
    public Builder counters(
        long tokensIn,
        long tokensOut,
        long tokensAccepted,
        long cacheHitTokens,
        long specProposed,
        long specAccepted) {
      this.tokensIn = tokensIn;
      this.tokensOut = tokensOut;
      this.tokensAccepted = tokensAccepted;
      this.cacheHitTokens = cacheHitTokens;
      this.specProposed = specProposed;
      this.specAccepted = specAccepted;
      return this;
    }

    /** Sets {@code fidelity_floor}. */
    public Builder fidelityFloor(Fidelity v) {
      fidelityFloor = v;
      return this;
    }

    /** Sets {@code fidelity_advertised} and {@code fidelity_delivered} together. */
    public Builder fidelityReport(Optional<FidelityReport> v) {
      fidelityReport = v;
      return this;
    }

    /** Sets {@code fidelity_met}. */
    public Builder fidelityMet(boolean v) {
      fidelityMet = v;
      return this;
    }

    /** Sets the energy figure. */
    public Builder energy(Energy v) {
      energy = v;
      return this;
    }

    /** Sets the decision fields. */
    public Builder decision(Optional<DecisionShape> v) {
      decision = v;
      return this;
    }

    /** Sets {@code grant_breach}. */
    public Builder grantBreach(Optional<String> v) {
      grantBreach = v;
      return this;
    }

    /** Sets {@code output_commitment}. */
    public Builder outputCommitment(Optional<ContentId> v) {
      outputCommitment = v;
      return this;
    }

    /** Sets {@code sequence} and {@code prev}. */
    public Builder chain(long sequence, Optional<ContentId> prev) {
      this.sequence = sequence;
      this.prev = prev;
      return this;
    }

    /** Sets {@code nonce}. */
    public Builder nonce(Nonce v) {
      nonce = v;
      return this;
    }

    /** Sets {@code steward}. */
    public Builder steward(DidKey v) {
      steward = v;
      return this;
    }

    /**
     * Builds the receipt.
     *
     * @throws IllegalArgumentException or NullPointerException if a field is missing or a rule is
     *     broken
     */
    public MeshReceipt build() {
      return new MeshReceipt(
          requestId,
          grantId,
          backend,
          recipe,
          weights,
          route,
          tokensIn,
          tokensOut,
          tokensAccepted,
          cacheHitTokens,
          specProposed,
          specAccepted,
          fidelityFloor,
          fidelityReport,
          fidelityMet,
          energy,
          decision,
          grantBreach,
          outputCommitment,
          sequence,
          prev,
          nonce,
          steward);
    }
  }
}
